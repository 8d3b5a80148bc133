import { DeflowError } from './deflow-error.js';

/**
 * JSON with object keys sorted at every depth, so equal values always give equal text.
 * @throws DeflowError `E_CACHE_KEY` for values JSON cannot carry faithfully.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw keyError(`the number ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw keyError(`an object of class ${proto?.constructor?.name ?? '?'}`);
    const object = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(object).sort()) {
      if (object[key] !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(object[key])}`);
    }
    return `{${parts.join(',')}}`;
  }
  throw keyError(`a value of type ${typeof value}`);
}

function keyError(found: string): DeflowError {
  return new DeflowError('E_CACHE_KEY', `cache key: expected JSON values in the parameters, found ${found}`, { details: { found } });
}
