import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { sendJson, useClientAt, useLocalServer } from './support.js';

interface Received {
  contentType: string;
  contentLength: string | undefined;
  transferEncoding: string | undefined;
  /** Body bytes as they came off the wire. */
  bytes: number;
  fields: [string, string][];
  files: { name: string; filename: string; bytes: number }[];
  json?: unknown;
}

/** A server that records what each body carried (multipart parsed with busboy, or JSON). */
async function recordingServer(onProgress: (entry: Received) => void = () => {}) {
  const received: Received[] = [];
  const server = await useLocalServer((req, res) => {
    const entry: Received = {
      contentType: String(req.headers['content-type']),
      contentLength: req.headers['content-length'],
      transferEncoding: req.headers['transfer-encoding'],
      bytes: 0,
      fields: [],
      files: [],
    };
    received.push(entry);
    req.on('data', (c: Buffer) => {
      entry.bytes += c.length;
      onProgress(entry);
    });
    // A body the client abandons half-way is part of what these tests send.
    req.on('error', () => {});
    const answer = (): void => sendJson(res, 200, { data: { request_id: 'r-1', price: 1 } });
    if (!entry.contentType.startsWith('multipart/')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        entry.json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        answer();
      });
      return;
    }
    const parser = busboy({ headers: req.headers });
    parser.on('field', (name, value) => entry.fields.push([name, value]));
    parser.on('file', (name, stream, info) => {
      let bytes = 0;
      stream.on('data', (c: Buffer) => (bytes += c.length));
      stream.on('end', () => entry.files.push({ name, filename: info.filename ?? '', bytes }));
    });
    parser.on('close', answer);
    parser.on('error', () => res.destroy());
    req.pipe(parser);
  });
  return { server, received, client: useClientAt(server.url, { governor: false }) };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-body-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('request bodies', () => {
  test('multipart of text fields only: 15 submits in a row on kept-alive connections leave no listener behind on their sockets', async () => {
    const { client, received } = await recordingServer();
    const sockets = new Set<Socket>();
    const onHeaders = (message: unknown): void => void sockets.add((message as { socket: Socket }).socket);
    const submit = (i: number) => client.submit('audio.speech', { text: `line ${i}`, model: 'Kokoro', voice: 'af_sky', lang: 'en-us', speed: 1, format: 'mp3', sample_rate: 24000 });
    subscribe('undici:client:sendHeaders', onHeaders);
    let after: { error: number; drain: number }[] = [];
    try {
      for (let i = 0; i < 15; i++) {
        await submit(i);
        after = [...sockets].map((socket) => ({ error: socket.listenerCount('error'), drain: socket.listenerCount('drain') }));
      }
    } finally {
      unsubscribe('undici:client:sendHeaders', onHeaders);
    }
    expect(received).toHaveLength(15);
    expect(received[14]!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(received[14]!.fields).toContainEqual(['text', 'line 14']);
    expect(Number(received[14]!.contentLength)).toBe(received[14]!.bytes);
    // undici's own listeners only (2 `error`, no `drain` on an idle socket); before, each request added one of each for good.
    expect(after.length).toBeGreaterThan(0);
    expect(after.length).toBeLessThan(15);
    for (const counts of after) expect(counts).toEqual({ error: 2, drain: 0 });
  });

  test('multipart: booleans as "true"/"false", lists as name[], objects as name[i][key], files by name', async () => {
    const { client, received } = await recordingServer();
    const a = join(dir, 'a.png');
    const b = join(dir, 'b.png');
    await writeFile(a, Buffer.alloc(1000, 1));
    await writeFile(b, Buffer.alloc(2000, 2));
    await client.submit('image.edit', {
      prompt: 'make it blue',
      model: 'QwenImageEdit_Plus_NF4',
      steps: 20,
      enhance_prompt: false,
      images: [{ path: a }, { path: b }],
      loras: [{ name: 'style', weight: 0.5 }],
      negative_prompt: null,
    });
    const [body] = received;
    expect(body!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(Number(body!.contentLength)).toBe(body!.bytes);
    expect(body!.fields).toEqual([
      ['prompt', 'make it blue'],
      ['model', 'QwenImageEdit_Plus_NF4'],
      ['steps', '20'],
      ['enhance_prompt', 'false'],
      ['loras[0][name]', 'style'],
      ['loras[0][weight]', '0.5'],
    ]);
    expect(body!.files).toEqual([
      { name: 'images[]', filename: 'a.png', bytes: 1000 },
      { name: 'images[]', filename: 'b.png', bytes: 2000 },
    ]);
  });

  test('multipart with a piped stream of known size carries a Content-Length', async () => {
    const { client, received } = await recordingServer();
    const chunks = [Buffer.alloc(3000, 1), Buffer.alloc(5000, 2)];
    await client.submit('image.upscale', {
      image: { stream: () => Readable.from(chunks), size: 8000, filename: 'piped.png', contentType: 'image/png' },
      model: 'RealESRGAN_x4',
      return_result_in_response: true,
    });
    const [body] = received;
    expect(Number(body!.contentLength)).toBeGreaterThan(8000);
    expect(Number(body!.contentLength)).toBe(body!.bytes);
    expect(body!.files).toEqual([{ name: 'image', filename: 'piped.png', bytes: 8000 }]);
    expect(body!.fields).toEqual([
      ['model', 'RealESRGAN_x4'],
      ['return_result_in_response', 'true'],
    ]);
  });

  test('multipart with a stream of unknown size, or an empty file, goes chunked', async () => {
    const { client, received } = await recordingServer();
    const empty = join(dir, 'empty.png');
    await writeFile(empty, '');
    async function* pieces(): AsyncGenerator<Uint8Array> {
      yield new Uint8Array(1500);
      yield new Uint8Array(2500);
    }
    await client.submit('image.edit', {
      prompt: 'p',
      model: 'QwenImageEdit_Plus_NF4',
      images: [{ stream: pieces, filename: 'unsized.png' }, { path: empty }],
    });
    const [body] = received;
    expect(body!.contentLength).toBeUndefined();
    expect(body!.transferEncoding).toBe('chunked');
    expect(body!.files).toEqual([
      { name: 'images[]', filename: 'unsized.png', bytes: 4000 },
      { name: 'images[]', filename: 'empty.png', bytes: 0 },
    ]);
  });

  test('a multipart body is streamed: the server has the first piece before the second is read', async () => {
    const piece = 64 * 1024;
    let firstArrived = (): void => {};
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    const { client, received } = await recordingServer((entry) => {
      if (entry.bytes >= piece) firstArrived();
    });
    // Were the body gathered before sending, the second piece would wait forever.
    async function* pieces(): AsyncGenerator<Uint8Array> {
      yield Buffer.alloc(piece, 1);
      await arrived;
      yield Buffer.alloc(piece, 2);
    }
    await client.submit('image.upscale', { image: { stream: pieces, size: 2 * piece, filename: 'big.png' }, model: 'RealESRGAN_x4' });
    expect(received[0]!.files).toEqual([{ name: 'image', filename: 'big.png', bytes: 2 * piece }]);
    expect(Number(received[0]!.contentLength)).toBe(received[0]!.bytes);
  });

  test.each([
    [7000, 'multipart part image: the stream gave 7000 bytes, 8000 were declared'],
    [9000, 'multipart part image: the stream gave 9000 or more bytes, 8000 were declared'],
  ])('a stream of %i bytes declared as 8000 fails the request, naming the part', async (actual, message) => {
    const { client, received } = await recordingServer();
    const error = await client
      .submit('image.upscale', { image: { stream: () => Readable.from([Buffer.alloc(actual)]), size: 8000, filename: 'x.png' }, model: 'RealESRGAN_x4' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_NETWORK' });
    expect((error as Error).message).toContain(message);
    expect(received.flatMap((r) => r.files)).toEqual([]);
  });

  test.skipIf(!existsSync('/proc/self/fd'))('an upload the service answers before reading leaves no file open', async () => {
    const path = join(dir, 'large.png');
    // Sparse, and far larger than the loopback socket buffers could swallow.
    await writeFile(path, '');
    await truncate(path, 256 * 1024 * 1024);
    const server = await useLocalServer((_req, res) => sendJson(res, 422, { message: 'The image field is invalid.', errors: { image: ['invalid'] } }));
    const client = useClientAt(server.url, { governor: false });
    await expect(client.submit('image.upscale', { image: { path }, model: 'RealESRGAN_x4' })).rejects.toMatchObject({ status: 422 });
    await expect.poll(() => openDescriptorsOf(path)).toBe(0);
  });

  test('JSON bodies keep real types and drop undefined fields', async () => {
    const { client, received } = await recordingServer();
    await client.submit('text.embed', { input: ['one', 'two'], model: 'Bge_M3_FP16', return_result_in_response: true, webhook_url: undefined });
    expect(received[0]!.contentType).toBe('application/json');
    expect(received[0]!.json).toEqual({ input: ['one', 'two'], model: 'Bge_M3_FP16', return_result_in_response: true });
  });

  test('a file in a JSON body is refused before sending', async () => {
    const { client, received } = await recordingServer();
    await expect(client.submit('text.embed', { input: { path: '/etc/hosts' }, model: 'Bge_M3_FP16' })).rejects.toMatchObject({
      code: 'E_INPUT_FILE_IN_JSON',
    });
    expect(received).toEqual([]);
  });

  test('a price quote leaves out the fields its twin ignores', async () => {
    const { client, received } = await recordingServer();
    const image = join(dir, 'ctx.png');
    await writeFile(image, Buffer.alloc(100));
    await client.price('prompt.enhance', { prompt: 'a cat', type: 'images.edits', model_slug: 'QwenImageEdit_Plus_NF4', image: { path: image } });
    expect(received[0]!.files).toEqual([]);
    expect(received[0]!.fields.map(([name]) => name)).toEqual(['prompt', 'type', 'model_slug']);
  });
});

function openDescriptorsOf(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}
