import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { sendJson, useClientAt, useLocalServer } from './support.js';

interface Received {
  contentType: string;
  contentLength: string | undefined;
  fields: [string, string][];
  files: { name: string; filename: string; bytes: number }[];
  json?: unknown;
}

/** A server that records what each body carried (multipart parsed with busboy, or JSON). */
async function recordingServer() {
  const received: Received[] = [];
  const server = await useLocalServer((req, res) => {
    const entry: Received = { contentType: String(req.headers['content-type']), contentLength: req.headers['content-length'], fields: [], files: [] };
    received.push(entry);
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
    expect(body!.files).toEqual([{ name: 'image', filename: 'piped.png', bytes: 8000 }]);
    expect(body!.fields).toEqual([
      ['model', 'RealESRGAN_x4'],
      ['return_result_in_response', 'true'],
    ]);
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
