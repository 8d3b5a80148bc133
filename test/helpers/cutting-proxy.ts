/**
 * A loopback proxy in front of the emulator that can cut result downloads mid-body: API
 * answers pass through (with the emulator's origin in them rewritten to the proxy's, so that
 * result URLs come through it too); while `cut` is on, a download sends its headers and half
 * its body, then drops the connection.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { onTestFinished } from 'vitest';

export interface CuttingProxy {
  readonly url: string;
  cut: boolean;
  /** Downloads cut so far. */
  cuts: number;
}

export async function useCuttingProxy(target: string): Promise<CuttingProxy> {
  const state = { url: '', cut: false, cuts: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers = { ...req.headers } as Record<string, string>;
        delete headers.host;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await request(`${target}${req.url ?? '/'}`, { method: (req.method ?? 'GET') as 'GET', headers, ...(body ? { body } : {}) });
        let payload = Buffer.from(await answer.body.arrayBuffer());
        const type = String(answer.headers['content-type'] ?? '');
        if (type.includes('json')) payload = Buffer.from(payload.toString('utf8').split(target).join(state.url));
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = String(v);
        const download = req.method === 'GET' && !(req.url ?? '').startsWith('/api/') && !(req.url ?? '').startsWith('/_emulator');
        res.writeHead(answer.statusCode, { ...out, 'content-length': String(payload.length) });
        if (download && state.cut && answer.statusCode === 200) {
          state.cuts++;
          res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.socket?.destroy());
          return;
        }
        res.end(payload);
      })().catch(() => res.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onTestFinished(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return state;
}
