/**
 * Result transfers always end, and never crash the process: a body cut right after its
 * headers, a server that never answers, one that stalls, one that trickles, a text result
 * past its cap without a Content-Length, a media result past its kind's cap. Each ends as a
 * coded E_TRANSFER error. Real HTTP servers on loopback, real (small) timeouts.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { NetworkError } from '../../src/client/errors/network-error.js';
import { TransferError } from '../../src/client/errors/transfer-error.js';
import { useClientAt, useLocalServer } from './support.js';

async function readAll(stream: AsyncIterable<unknown>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  return bytes;
}

function trickle(res: ServerResponse, everyMs: number): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  const timer = setInterval(() => {
    if (res.destroyed) clearInterval(timer);
    else res.write('x');
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

describe('result transfers always end', () => {
  test('a body cut right after its headers is a coded error when read later, never an unhandled event', async () => {
    const server = await useLocalServer((_req, res) => {
      res.writeHead(200, { 'content-length': '100000', 'content-type': 'image/png' });
      res.flushHeaders();
      setTimeout(() => res.socket?.destroy(), 5);
    });
    const client = useClientAt(server.url);
    const opened = await client.openResult(`${server.url}/result.png`);
    // Nobody reads for a while: the cut happens with no reader attached.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const error = await readAll(opened.stream).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransferError);
    expect(error).toMatchObject({ code: 'E_TRANSFER' });
  });

  test('a server that never sends headers times out (headersTimeoutMs)', async () => {
    const server = await useLocalServer(() => {});
    const client = useClientAt(server.url, { transfer: { headersTimeoutMs: 200 } });
    const error = await client.openResult(`${server.url}/r.png`).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_TRANSFER', message: expect.stringContaining('no answer headers within 200 ms') });
  });

  test('a body that stalls times out (stallTimeoutMs)', async () => {
    const server = await useLocalServer((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('x'.repeat(10));
    });
    const client = useClientAt(server.url, { transfer: { stallTimeoutMs: 200 } });
    const opened = await client.openResult(`${server.url}/r.png`);
    const error = await readAll(opened.stream).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_TRANSFER', message: expect.stringContaining('stalled: no bytes for 200 ms') });
  });

  test('a server that trickles a byte at a time ends at the overall deadline (deadlineMs, or the caller’s)', async () => {
    const server = await useLocalServer((_req, res) => trickle(res, 20));
    const client = useClientAt(server.url, { transfer: { deadlineMs: 400 } });
    const error = await readAll((await client.openResult(`${server.url}/r.png`)).stream).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_TRANSFER', message: expect.stringContaining('did not finish within 400 ms') });
    const caller = await readAll((await client.openResult(`${server.url}/r.png`, { deadlineMs: 300 })).stream).catch((e: unknown) => e);
    expect(caller).toMatchObject({ code: 'E_TRANSFER', message: expect.stringContaining('did not finish within 300 ms') });
  });

  test('a text result past 10 MiB without a Content-Length is refused as it flows', async () => {
    const server = await useLocalServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length announced
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      for (let i = 0; i < 11; i++) res.write(chunk);
      res.end();
    });
    const client = useClientAt(server.url);
    const opened = await client.openResult(`${server.url}/r.txt`, { kind: 'text' });
    const error = await readAll(opened.stream).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_TRANSFER', message: expect.stringContaining('longer than the 10485760 bytes allowed for a text result') });
  });

  test('a media result past its kind’s cap is refused from its Content-Length, before any byte is read; the cap is configurable', async () => {
    const server = await useLocalServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(300 * 1024 * 1024), 'content-type': 'image/png' });
      res.flushHeaders();
    });
    const client = useClientAt(server.url);
    const error = await client.openResult(`${server.url}/r.png`, { kind: 'image' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_TRANSFER', message: expect.stringContaining('more than the 52428800 allowed for a image result (client option transfer.maxBytes.image)') });
    const small = useClientAt(server.url, { transfer: { maxBytes: { video: 1024 } } });
    const video = await small.openResult(`${server.url}/r.mp4`, { kind: 'video' }).catch((e: unknown) => e);
    expect(video).toMatchObject({ code: 'E_TRANSFER', message: expect.stringContaining('more than the 1024 allowed') });
  });

  test('a % in the result file name is kept as it is, not an internal error', async () => {
    const server = await useLocalServer((_req, res) => res.end('payload'));
    const client = useClientAt(server.url);
    const opened = await client.openResult(`${server.url}/100%25%zz.png`);
    expect(opened.filename).toBe('100%25%zz.png');
    expect(await readAll(opened.stream)).toBe(7);
  });
});

describe('API requests always end', () => {
  test('an answer that trickles a byte at a time ends at requestDeadlineMs as a network error that may have reached the service, and is not resent', async () => {
    const server = await useLocalServer((_req, res) => trickle(res, 20));
    // The idle timeouts alone would never fire: a byte arrives every 20 ms.
    const client = useClientAt(server.url, { requestDeadlineMs: 300, retry: { maxRetries: 3, random: () => 0 } });
    const error = await client.submit('image.generate', { prompt: 'p', model: 'Flux1schnell', width: 512, height: 512, steps: 4, seed: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'E_NETWORK', reachedService: true, networkCode: 'E_REQUEST_DEADLINE' });
    expect((error as Error).message).toContain('request deadline of 300 ms');
    expect(server.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  test('a GET whose answer trickles is retried after its deadline, then surfaces as a network error', async () => {
    const server = await useLocalServer((_req, res) => trickle(res, 20));
    const client = useClientAt(server.url, { requestDeadlineMs: 200, retry: { maxRetries: 2, random: () => 0 } });
    const error = await client.balance().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_NETWORK', networkCode: 'E_REQUEST_DEADLINE' });
    expect(server.seen).toHaveLength(3);
  });
});
