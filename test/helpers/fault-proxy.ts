/**
 * A loopback fault proxy between a client and the emulator. API answers and result downloads
 * pass through it (the emulator's origin in JSON answers is rewritten to the proxy's, so result
 * URLs come through it too). A fault plan picks one kind of fault and one phase of the job's
 * life (`submit`: a job-creating POST; `poll`: a status GET; `download`: a result GET); each
 * request of that phase draws from a seeded PRNG whether the fault hits it.
 *
 * Faults (what the proxy does to a request it hits):
 * - `latency`: waits 20–200 ms (real) before forwarding.
 * - `down`: the service is unreachable: the request is dropped unforwarded and the proxy stops
 *   listening (new connections are refused) for `downMs` on the plan's clock.
 * - `bandwidth`: the answer flows at `bandwidthBytesPerS`.
 * - `slow-body`: the answer trickles, `slowChunkBytes` every 10 ms.
 * - `stall`: forwarded; then either no headers ever, or the headers and part of the body and
 *   then silence (drawn), the socket kept open.
 * - `reset`: forwarded (the service acts on it), then the connection is reset, no answer.
 * - `cut-after-headers`: forwarded; headers (announcing the full length), then the connection drops.
 * - `cut-mid-body`: forwarded; headers and half the body, then the connection drops.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent, request } from 'undici';
import { onTestFinished } from 'vitest';
import type { Clock } from '../../src/common/index.js';
import { createRandom } from '../../src/emulator/config/random.js';

export const FAULTS = ['latency', 'down', 'bandwidth', 'slow-body', 'stall', 'reset', 'cut-after-headers', 'cut-mid-body'] as const;
export type Fault = (typeof FAULTS)[number];
export const PHASES = ['submit', 'poll', 'download'] as const;
export type Phase = (typeof PHASES)[number] | 'other';

export interface FaultPlan {
  readonly fault: Fault;
  readonly phase: Exclude<Phase, 'other'>;
  readonly seed: number;
  /** Share of the phase's requests the fault hits. @default 0.5 */
  readonly rate?: number;
  /** `down`: how long the outage lasts, in ms of `clock`. @default 3000 */
  readonly downMs?: number;
  /** `bandwidth`. @default 65536 */
  readonly bandwidthBytesPerS?: number;
  /** `slow-body`: bytes sent every 10 ms. @default 2 */
  readonly slowChunkBytes?: number;
}

export interface FaultProxy {
  readonly url: string;
  /** The plan in force (null: everything passes). */
  plan: FaultPlan | null;
  /** Requests seen and faults injected, per phase. */
  readonly seen: Record<Phase, number>;
  readonly hit: Record<Phase, number>;
}

/** Starts a fault proxy in front of `target` that closes when the current test finishes. */
export async function useFaultProxy(target: string, options: { clock?: Clock } = {}): Promise<FaultProxy> {
  const proxy = await startFaultProxy(target, options);
  onTestFinished(() => proxy.close());
  return proxy;
}

/** Starts a fault proxy in front of `target`; `close()` stops it. */
export async function startFaultProxy(target: string, options: { clock?: Clock } = {}): Promise<FaultProxy & { close(): Promise<void> }> {
  const upstream = new Agent({ connections: 64 });
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let random: () => number = Math.random;
  let seededFor: FaultPlan | null = null;
  let down = false;
  let closed = false;
  const state = {
    url: '',
    plan: null as FaultPlan | null,
    seen: { submit: 0, poll: 0, download: 0, other: 0 } as Record<Phase, number>,
    hit: { submit: 0, poll: 0, download: 0, other: 0 } as Record<Phase, number>,
    close,
  };
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) fn();
    }, ms);
    timers.add(timer);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    req.on('end', () => {
      handle(req, res, chunks.length > 0 ? Buffer.concat(chunks) : undefined).catch(() => res.socket?.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (down) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${port}`;

  async function handle(req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): Promise<void> {
    if (down) {
      res.socket?.destroy();
      return;
    }
    const phase = phaseOf(req.method ?? 'GET', req.url ?? '/');
    state.seen[phase]++;
    const plan = state.plan;
    if (plan !== seededFor) {
      seededFor = plan;
      random = createRandom(plan?.seed ?? 0, 'fault-proxy');
    }
    const fault = plan !== null && plan.phase === phase && random() < (plan.rate ?? 0.5) ? plan.fault : null;
    if (fault !== null) state.hit[phase]++;
    if (fault === 'down') {
      startOutage(plan!.downMs ?? 3000);
      res.socket?.destroy();
      return;
    }
    if (fault === 'latency') await new Promise((resolve) => later(20 + Math.floor(random() * 180), () => resolve(undefined)));
    const headers = { ...req.headers } as Record<string, string>;
    delete headers.host;
    delete headers.connection;
    const answer = await request(`${target}${req.url ?? '/'}`, { dispatcher: upstream, method: (req.method ?? 'GET') as 'GET', headers, ...(body ? { body } : {}) });
    let payload = Buffer.from(await answer.body.arrayBuffer());
    if (String(answer.headers['content-type'] ?? '').includes('json')) payload = Buffer.from(payload.toString('utf8').split(target).join(state.url));
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) out[k] = String(v);
    out['content-length'] = String(payload.length);
    switch (fault) {
      case 'reset':
        if (res.socket && typeof res.socket.resetAndDestroy === 'function') res.socket.resetAndDestroy();
        else res.socket?.destroy();
        return;
      case 'stall':
        if (random() < 0.5) return; // no headers, ever
        res.writeHead(answer.statusCode, out);
        res.write(payload.subarray(0, Math.floor(payload.length / 3)));
        return; // then silence
      case 'cut-after-headers':
        res.writeHead(answer.statusCode, out);
        res.flushHeaders();
        later(5, () => res.socket?.destroy());
        return;
      case 'cut-mid-body':
        res.writeHead(answer.statusCode, out);
        res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.socket?.destroy());
        return;
      case 'bandwidth':
        res.writeHead(answer.statusCode, out);
        return trickle(res, payload, Math.max(1, Math.round((plan!.bandwidthBytesPerS ?? 65536) / 100)));
      case 'slow-body':
        res.writeHead(answer.statusCode, out);
        return trickle(res, payload, plan!.slowChunkBytes ?? 2);
      default:
        res.writeHead(answer.statusCode, out);
        res.end(payload);
    }
  }

  /** Sends `payload` `chunk` bytes every 10 ms. */
  function trickle(res: ServerResponse, payload: Buffer, chunk: number): void {
    let at = 0;
    const next = () => {
      if (res.destroyed) return;
      const end = Math.min(payload.length, at + chunk);
      const part = payload.subarray(at, end);
      at = end;
      if (at >= payload.length) res.end(part);
      else res.write(part, () => later(10, next));
    };
    next();
  }

  function startOutage(ms: number): void {
    if (down) return;
    down = true;
    server.close();
    server.closeIdleConnections();
    const back = () => {
      down = false;
      if (!closed) server.listen(port, '127.0.0.1');
    };
    if (options.clock) {
      const controller = new AbortController();
      void options.clock.sleep(ms, controller.signal).then(back, () => {});
    } else later(ms, back);
  }

  async function close(): Promise<void> {
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    await upstream.close();
  }

  return state;
}

/** Which part of a job's life a request is. */
export function phaseOf(method: string, url: string): Phase {
  const path = url.split('?')[0] ?? '';
  if (path.startsWith('/_emulator')) return 'other';
  if (!path.startsWith('/api/')) return method === 'GET' ? 'download' : 'other';
  if (method === 'GET' && /request-status|\/jobs\//.test(path)) return 'poll';
  if (method === 'POST' && !/price|calculat|enhance/.test(path)) return 'submit';
  return 'other';
}
