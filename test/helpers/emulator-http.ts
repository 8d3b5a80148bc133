/**
 * Test helpers: start an emulator on loopback and call it over real HTTP with undici.
 */
import { type Dispatcher, type FormData, request } from 'undici';
import { onTestFinished } from 'vitest';
import { type EmulatorConfigInput, type RunningEmulator, type StartEmulatorOptions, startEmulator } from '../../src/emulator/start-emulator.js';

/** An answer, headers lower-cased, JSON body parsed (or null when it is not JSON). */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
  readonly text: string;
}

export interface CallOptions {
  /** Bearer token; omit for no Authorization header. */
  readonly key?: string;
  /** A JSON body (object), or a raw string/Buffer/FormData. */
  readonly json?: unknown;
  readonly body?: string | Buffer | FormData;
  readonly headers?: Record<string, string>;
  readonly dispatcher?: Dispatcher;
}

/** Starts an emulator that closes when the current test finishes. */
export async function useEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator(options);
  onTestFinished(async () => {
    await emulator.close();
  });
  return emulator;
}

/** Calls `method path` on the emulator. */
export async function call(emulator: { url: string }, method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD', path: string, options: CallOptions = {}): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | Buffer | FormData | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${emulator.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  const text = await res.body.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return { status: res.statusCode, headers: flat, body: parsed, text };
}

/** The X-RateLimit-* and Retry-After headers of an answer. */
export function rateHeaders(answer: HttpAnswer): Record<string, string> {
  return Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.startsWith('x-ratelimit-') || name === 'retry-after'));
}

/** Keys of a two-key config used across tests. */
export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';
export const API_KEY = 'test-api-key-0123456789abcdef';

/** A config object with an admin and an api key, plus `extra`. */
export function withKeys(extra: EmulatorConfigInput = {}): EmulatorConfigInput {
  return {
    keys: [
      { secret: ADMIN_KEY, role: 'admin', name: 'admin' },
      { secret: API_KEY, role: 'api', name: 'api' },
    ],
    ...extra,
  };
}
