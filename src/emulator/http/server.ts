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
import { type ApiResponse, errorResponse, jsonResponse, MESSAGES, methodNotAllowed, routeNotFound } from './responses.js';
import type { EmulatorServices } from './services.js';

/** An HTTP server answering as the service does. Not yet listening. */
export function createEmulatorServer(services: EmulatorServices): Server {
  const server = createServer((req, res) => handleEmulatorRequest(req, res, services));
  // Uploads of tens of MB on slow CI machines must not hit Node's default 300 s request timeout.
  server.requestTimeout = 0;
  return server;
}

/** The `request_id` of a submission's answer (`{ data: { request_id } }`), else null. */
function requestIdOf(body: unknown): string | null {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  const id = typeof data === 'object' && data !== null ? (data as { request_id?: unknown }).request_id : undefined;
  return typeof id === 'string' ? id : null;
}

/** GET /_emulator/faults. */
function faultState(services: EmulatorServices): Record<string, unknown> {
  return { drop_answers_pending: services.faults.pendingDrops, drop_answer_rate: services.config.faults.drop_answer_rate, dropped_answers: services.stats.snapshot().dropped_answers };
}

/** `/_emulator/*` routes that change the emulator (POST), for tests. */
const CONTROL_ROUTES: Readonly<Record<string, (body: unknown, services: EmulatorServices) => ApiResponse>> = {
  '/_emulator/faults': (body, services) => {
    const count = typeof body === 'object' && body !== null ? (body as { drop_answers?: unknown }).drop_answers : undefined;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
      return jsonResponse(422, { message: 'expected {"drop_answers": N}, N a whole number >= 0', errors: { drop_answers: ['must be a whole number >= 0'] } });
    }
    services.faults.dropNextAnswers(count);
    return jsonResponse(200, faultState(services));
  },
  '/_emulator/webhooks/enable': (_body, services) => {
    services.webhooks.enable();
    return jsonResponse(200, services.webhooks.stats());
  },
};

async function readControlBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > 65_536) return null;
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
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
    const control = CONTROL_ROUTES[path];
    let response: ApiResponse;
    if (control !== undefined && req.method === 'POST') response = control(await readControlBody(req), services);
    else if (control !== undefined && path !== '/_emulator/faults') response = methodNotAllowed(req.method ?? 'GET', path, ['POST']);
    else if (req.method === 'GET' || req.method === 'HEAD') {
      response =
        path === '/_emulator/faults'
          ? jsonResponse(200, faultState(services))
          : answerIntrospection(path, {
              stats: services.stats,
              jobs: () => services.jobs.list(),
              clock: services.clock,
              timeScale: 1 / services.clock.realPerVirtual,
              webhooks: () => services.webhooks.stats(),
            });
    } else response = methodNotAllowed(req.method ?? 'POST', path, control === undefined ? ['GET', 'HEAD'] : ['GET', 'HEAD', 'POST']);
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
  // An accepted submission whose answer is lost: the job exists (and is charged when it ends),
  // the client sees a reset and cannot know (docs/deapi-contract.md: no idempotency key).
  if (req.method === 'POST' && outcome.response.status === 200 && requestIdOf(outcome.response.body) !== null && services.faults.planDropAnswer()) {
    services.stats.count('dropped_answers');
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
