import type { StepSettings } from '../types.js';
import { own } from './plain.js';

/** Settings from a `defaults` map or a step, over `base`; values of the wrong type are ignored (the schema reports them). */
export function readSettings(source: unknown, base: StepSettings): StepSettings {
  const concurrency = own(source, 'concurrency');
  const retries = own(source, 'retries');
  const timeout = parseDuration(own(source, 'timeout'));
  const cache = own(source, 'cache');
  const api = own(source, 'api_version');
  const settings: { -readonly [K in keyof StepSettings]: StepSettings[K] } = {
    retries: isCount(retries) ? retries : base.retries,
    cache: typeof cache === 'boolean' ? cache : base.cache,
    apiVersion: api === 'v1' || api === 'v2' ? api : base.apiVersion,
  };
  const chosenConcurrency = isCount(concurrency) && concurrency > 0 ? concurrency : base.concurrency;
  if (chosenConcurrency !== undefined) settings.concurrency = chosenConcurrency;
  const chosenTimeout = timeout ?? base.timeoutSeconds;
  if (chosenTimeout !== undefined) settings.timeoutSeconds = chosenTimeout;
  return settings;
}

/** Built-in settings. */
export const BASE_SETTINGS: StepSettings = { retries: 0, cache: true, apiVersion: 'v2' };

const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600 };

/** Seconds from `30`, `"90s"`, `"10m"`, `"2h"`, `"500ms"`; undefined for anything else. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)$/.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * (UNIT_SECONDS[match[2] ?? 's'] ?? 1);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
