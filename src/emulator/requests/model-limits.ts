/**
 * Tolerant readers of a model's `info` (limits, defaults and features may come as numeric
 * strings or "0"/"1" from a PHP backend; see docs/deapi-contract.md#models).
 */
import type { ModelInfo } from '../../service/index.js';

/** A numeric `info.limits` entry, or undefined when absent or not numeric. */
export function limitNumber(model: ModelInfo | null, key: string | undefined): number | undefined {
  if (!model || key === undefined) return undefined;
  const raw = model.info.limits[key];
  const value = typeof raw === 'string' ? Number(raw) : raw;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A list `info.limits` entry as strings, or undefined. */
export function limitList(model: ModelInfo | null, key: string | undefined): string[] | undefined {
  if (!model || key === undefined) return undefined;
  const raw = model.info.limits[key];
  return Array.isArray(raw) ? raw.map(String) : undefined;
}

/** An `info.features` flag; "1"/"true" count as true. Undefined when the model does not say. */
export function featureFlag(model: ModelInfo | null, key: string): boolean | undefined {
  const raw: unknown = model?.info.features[key];
  if (raw === undefined || raw === null) return undefined;
  return raw === true || raw === 1 || raw === '1' || raw === 'true';
}

/** An `info.defaults` entry, or undefined. */
export function modelDefault(model: ModelInfo | null, key: string | undefined): number | string | undefined {
  if (!model || key === undefined) return undefined;
  return model.info.defaults[key];
}
