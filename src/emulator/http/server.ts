/**
 * The emulator's HTTP server: `/api/…` through the request pipeline, `/results/…` (result
 * downloads, no auth, not rate limited) and `/_emulator/…` (introspection). Every answer is
 * written here, where faults (resets, truncated bodies) are applied.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Clock } from '../../common/index.js';
import { EMULATOR_CLOCK_HEADER, formatEmulatorClock } from '../../common/index.js';
import { answerApiRequest } from './api-handlers.js';
import { runApiPipeline } from './api-pipeline.js';
import { discardUploads, drainRequest } from './body-parser.js';
import { type FaultPlan, NO_FAULTS, resetConnection, writeTruncated } from '../config/faults.js';
import { answerIntrospection } from './introspection.js';
import { type ApiResponse, errorResponse, MESSAGES, methodNotAllowed, routeNotFound } from './responses.js';
import type { EmulatorServices } from '../services.js';

/** An HTTP server answering as the service does. Not yet listening. */
export function createEmulatorServer(services: EmulatorServices): Server {
  const server = createServer((req, res) => handleEmulatorRequest(req, res, services));
  // Uploads of tens of MB on slow CI machines must not hit Node's default 300 s request timeout.
  server.requestTimeout = 0;
  return server;
}

/** Answers one request (the listener of the HTTP and the HTTPS server); a bug is answered 500. */
export function handleEmulatorRequest(req: IncomingMessage, res: ServerResponse, services: EmulatorServices): void {
  handleRequest(req, res, services).catch((error: unknown) => {
    services.onError(error);
    if (!res.headersSent) void writeJson(req, res, errorResponse(500, MESSAGES.serverError), NO_FAULTS, services.clock);
    else res.destroy();
  });
}

async function handleRequest(req: IncomingMessage, res: ServerResponse, services: EmulatorServices): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator.invalid');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  if (path.startsWith('/_emulator/')) {
    const response =
      req.method === 'GET' || req.method === 'HEAD'
        ? answerIntrospection(path, {
            stats: services.stats,
            jobs: () => services.jobs.list(),
            clock: services.clock,
            timeScale: 1 / services.clock.realPerVirtual,
          })
        : methodNotAllowed(req.method ?? 'POST', path, ['GET', 'HEAD']);
    await writeJson(req, res, response, NO_FAULTS, services.clock);
    return;
  }
  if (path.startsWith('/results/')) {
    services.stats.countRequest();
    await answerDownload(req, res, path, url.searchParams, services);
    return;
  }
  if (!path.startsWith('/api/')) {
    await writeJson(req, res, routeNotFound(path), NO_FAULTS, services.clock);
    return;
  }
  services.stats.countRequest();
  const outcome = await runApiPipeline(req, path, url.searchParams, services, answerApiRequest);
  // The answer is computed: uploads are no longer needed, and removing them before answering
  // means a client never sees them linger.
  if (outcome.body) await discardUploads(outcome.body);
  if (outcome.response === 'reset') {
    resetConnection(res);
    return;
  }
  services.stats.countStatus(outcome.response.status);
  await writeJson(req, res, outcome.response, outcome.faults, services.clock);
}

/** GET /results/{request_id}/{filename}: the file of a finished job. */
async function answerDownload(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, services: EmulatorServices): Promise<void> {
  const [, , requestId = '', ...rest] = path.split('/');
  const filename = rest.join('/');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const response = methodNotAllowed(req.method ?? 'POST', path, ['GET', 'HEAD']);
    services.stats.countStatus(response.status);
    await writeJson(req, res, response, NO_FAULTS, services.clock);
    return;
  }
  const file = requestId && filename ? await services.jobs.download(decodeURIComponent(requestId), decodeURIComponent(filename), query) : undefined;
  if (!file) {
    services.stats.countStatus(404);
    await writeJson(req, res, errorResponse(404, MESSAGES.notFound), NO_FAULTS, services.clock);
    return;
  }
  services.stats.countStatus(200);
  services.stats.count('downloads');
  const faults = services.faults.planDownload();
  writeBody(res, 200, { 'Content-Type': file.contentType }, file.body, faults, services.clock);
}

async function writeJson(req: IncomingMessage, res: ServerResponse, response: ApiResponse, faults: FaultPlan, clock: Clock): Promise<void> {
  // An early answer (401, 413, …) waits until the client has finished sending its body.
  await drainRequest(req);
  const body = Buffer.from(JSON.stringify(response.body));
  const headers = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', ...response.headers };
  writeBody(res, response.status, headers, body, faults, clock);
}

function writeBody(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer, faults: FaultPlan, clock: Clock): void {
  if (res.destroyed) return;
  res.statusCode = status;
  // Dates a client compares with X-RateLimit-Reset must be on the same (virtual) clock.
  const now = clock.now();
  res.setHeader('Date', new Date(now).toUTCString());
  // Not deAPI's: the virtual clock itself, so a deflow process in another process can follow it.
  res.setHeader(EMULATOR_CLOCK_HEADER, formatEmulatorClock({ nowMs: now, timeScale: 1 / clock.realPerVirtual }));
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (faults.truncate && body.length > 0) {
    writeTruncated(res, body);
    return;
  }
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}
