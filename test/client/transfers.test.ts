import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { DeapiClient } from '../../src/client/deapi-client.js';
import { TransferError } from '../../src/client/errors/transfer-error.js';
import { UnsafeUrlError } from '../../src/client/errors/unsafe-url-error.js';
import { makeWav } from '../../src/emulator/media/index.js';
import { useClient, useClientAt, useEmulator, useLocalServer } from './support.js';

const IMAGE = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-transfers-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function finishedResultUrl(client: DeapiClient, clock: { sleep(ms: number): Promise<void> }): Promise<string> {
  const job = await client.submit('image.generate', IMAGE);
  if (job.kind !== 'job') throw new Error('expected a job');
  for (;;) {
    const status = await client.jobStatus(job.requestId);
    if (status.status === 'done' && status.resultUrl) return status.resultUrl;
    await clock.sleep(1000);
  }
}

describe('uploads', () => {
  test('a file field is streamed from disk into a multipart submission', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const path = join(dir, 'talk.wav');
    await writeFile(path, makeWav(3));
    const job = await client.submit('audio.transcribe', { source_file: { path }, model: 'WhisperLargeV3', include_ts: false });
    expect(job.kind).toBe('job');
    expect(emulator.jobs()[0]).toMatchObject({ task: 'audio.transcribe', endpoint: '/api/v2/audio/transcriptions' });
  });

  test("a previous job's result is piped into the next job's upload", async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const url = await finishedResultUrl(client, emulator.clock);
    const image = await client.resultSource(url);
    expect(image.size).toBeGreaterThan(0);
    const next = await client.submit('image.upscale', { image, model: 'RealESRGAN_x4' });
    expect(next.kind).toBe('job');
    expect(emulator.jobs().map((j) => j.task)).toEqual(['image.generate', 'image.upscale']);
  });

  test('a missing input file is an input error before anything is sent', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const error = await client.submit('image.upscale', { image: { path: join(dir, 'nope.png') }, model: 'RealESRGAN_x4' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_INPUT_FILE' });
    expect(emulator.stats().requests).toBe(0);
  });
});

describe('downloads', () => {
  test('a result is streamed to a temporary file, checked against Content-Length and renamed', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const url = await finishedResultUrl(client, emulator.clock);
    const target = join(dir, 'out.png');
    const result = await client.downloadResult(url, target);
    expect(result.bytes).toBe(statSync(target).size);
    expect(result.contentType).toBe('image/png');
    expect(await readdir(dir)).toEqual(['out.png']);
  });

  test('a body cut short of its Content-Length is a TransferError and leaves no file', async () => {
    // The emulator's truncate fault also cuts API answers, so this server plays the storage
    // host alone: full Content-Length, half the body, then the connection drops.
    const server = await useLocalServer((_req, res) => {
      const body = Buffer.alloc(64 * 1024, 7);
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(body.length) });
      res.flushHeaders();
      res.write(body.subarray(0, body.length / 2), () => res.socket?.destroy());
    });
    const client = useClientAt(server.url);
    const error = await client.downloadResult(`${server.url}/results/x/result.png?signature=abc`, join(dir, 'cut.png')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransferError);
    expect((error as TransferError).code).toBe('E_TRANSFER');
    expect((error as Error).message).not.toContain('signature=abc');
    expect(await readdir(dir)).toEqual([]);
  });

  test('a result larger than maxBytes is refused and leaves no file', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const url = await finishedResultUrl(client, emulator.clock);
    await expect(client.downloadResult(url, join(dir, 'big.png'), { maxBytes: 10 })).rejects.toBeInstanceOf(TransferError);
    expect(await readdir(dir)).toEqual([]);
  });

  test('the API key goes to the base URL origin only, never to a result host on another origin', async () => {
    const storage = await useLocalServer((_req, res) => res.end('payload'));
    const api = await useLocalServer((_req, res) => res.end('payload'));
    const client = useClientAt(api.url, { apiKey: 'secret-key-0123456789' });
    await client.downloadResult(`${storage.url}/file.bin`, join(dir, 'a.bin'));
    await client.downloadResult(`${api.url}/file.bin`, join(dir, 'b.bin'));
    expect(storage.seen[0]!.headers.authorization).toBeUndefined();
    expect(api.seen[0]!.headers.authorization).toBe('Bearer secret-key-0123456789');
  });

  test('a redirect to another origin is followed without the key; more than three redirects are refused', async () => {
    const storage = await useLocalServer((_req, res) => res.end('payload'));
    const api = await useLocalServer((req, res) => {
      const hop = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('hop') ?? 0);
      if (req.url?.startsWith('/away')) res.writeHead(302, { location: `${storage.url}/file.bin` }).end();
      else res.writeHead(302, { location: `/loop?hop=${hop + 1}` }).end();
    });
    const client = useClientAt(api.url, { apiKey: 'secret-key-0123456789' });
    await client.downloadResult(`${api.url}/away`, join(dir, 'moved.bin'));
    expect(storage.seen[0]!.headers.authorization).toBeUndefined();
    await expect(client.downloadResult(`${api.url}/loop`, join(dir, 'loop.bin'))).rejects.toBeInstanceOf(UnsafeUrlError);
    expect(api.seen.filter((r) => r.url.startsWith('/loop'))).toHaveLength(4);
  });

  test('plain http is refused off loopback, and so are other schemes, before any request', async () => {
    const client = useClientAt('http://127.0.0.1:9');
    for (const url of ['http://example.com/r.png', 'file:///etc/passwd', 'ftp://example.com/r.png', 'https://user:pw@example.com/r']) {
      const error = await client.downloadResult(url, join(dir, 'x')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsafeUrlError);
      expect((error as UnsafeUrlError).code).toBe('E_UNSAFE_URL');
    }
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });

  test('a redirect to plain http off loopback is refused', async () => {
    const api = await useLocalServer((_req, res) => res.writeHead(301, { location: 'http://example.com/r.png' }).end());
    const client = useClientAt(api.url);
    await expect(client.downloadResult(`${api.url}/r.png`, join(dir, 'r.png'))).rejects.toBeInstanceOf(UnsafeUrlError);
  });
});
