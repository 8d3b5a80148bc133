import { randomBytes } from 'node:crypto';

/** One part of a hand-framed multipart body. */
export type MultipartPart =
  | { readonly kind: 'text'; readonly name: string; readonly value: string }
  | {
      readonly kind: 'stream';
      readonly name: string;
      readonly filename: string;
      readonly contentType: string;
      /** Byte length when known; unknown lengths make the body length unknown (chunked). */
      readonly size: number | undefined;
      readonly open: () => AsyncIterable<Uint8Array>;
    };

/**
 * Frames `parts` as multipart/form-data, pulling each stream only as the socket drains, so
 * memory stays flat whatever the size. Streams whose length is declared are checked against
 * it: a mismatch would corrupt the body the Content-Length promised.
 */
export function encodeMultipartStream(parts: readonly MultipartPart[]): {
  body: AsyncIterable<Uint8Array>;
  contentType: string;
  contentLength: number | undefined;
} {
  const boundary = `----deflow${randomBytes(12).toString('hex')}`;
  const heads = parts.map((part) => Buffer.from(`--${boundary}\r\n${partHeaders(part)}\r\n`));
  const tail = Buffer.from(`--${boundary}--\r\n`);
  let length: number | undefined = tail.length;
  parts.forEach((part, i) => {
    const size = part.kind === 'text' ? Buffer.byteLength(part.value) : part.size;
    length = length === undefined || size === undefined ? undefined : length + heads[i]!.length + size + 2;
  });
  async function* generate(): AsyncGenerator<Uint8Array> {
    for (const [i, part] of parts.entries()) {
      yield heads[i]!;
      if (part.kind === 'text') yield Buffer.from(part.value);
      else {
        let sent = 0;
        for await (const chunk of part.open()) {
          sent += chunk.byteLength;
          yield chunk;
        }
        if (part.size !== undefined && sent !== part.size) {
          throw new Error(`multipart part ${part.name}: the stream gave ${sent} bytes, ${part.size} were declared`);
        }
      }
      yield CRLF;
    }
    yield tail;
  }
  return { body: generate(), contentType: `multipart/form-data; boundary=${boundary}`, contentLength: length };
}

const CRLF = Buffer.from('\r\n');

function partHeaders(part: MultipartPart): string {
  const name = escapeQuoted(part.name);
  if (part.kind === 'text') return `Content-Disposition: form-data; name="${name}"\r\n`;
  return `Content-Disposition: form-data; name="${name}"; filename="${escapeQuoted(part.filename)}"\r\nContent-Type: ${part.contentType}\r\n`;
}

function escapeQuoted(value: string): string {
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}
