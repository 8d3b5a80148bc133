/**
 * Laravel-lenient coercion of raw request values (strings from forms, real types from JSON).
 * Each function answers `{ ok: true, value }` or `{ ok: false }`; the caller picks the message.
 */

export type Coerced<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

const fail = { ok: false } as const;
const ok = <T>(value: T): Coerced<T> => ({ ok: true, value });

const TRUE_WORDS = new Set(['true', '1', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'off']);

/** true/false, 1/0 and their string forms, and "on"/"off" (HTML checkboxes). */
export function coerceBoolean(raw: unknown): Coerced<boolean> {
  if (typeof raw === 'boolean') return ok(raw);
  if (raw === 1 || raw === 0) return ok(raw === 1);
  if (typeof raw === 'string') {
    const word = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return ok(true);
    if (FALSE_WORDS.has(word)) return ok(false);
  }
  return fail;
}

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A finite number, or a numeric string (PHP `is_numeric`, surrounding blanks allowed). */
export function coerceNumber(raw: unknown): Coerced<number> {
  if (typeof raw === 'number') return Number.isFinite(raw) ? ok(raw) : fail;
  if (typeof raw === 'string' && NUMERIC.test(raw.trim())) return ok(Number(raw.trim()));
  return fail;
}

const INTEGER = /^[+-]?\d+$/;

/** A whole number: an integer JSON number or a string of digits (`"4.0"` is not one, as in PHP). */
export function coerceInteger(raw: unknown): Coerced<number> {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? ok(raw) : fail;
  if (typeof raw === 'string' && INTEGER.test(raw.trim())) {
    const value = Number(raw.trim());
    return Number.isSafeInteger(value) ? ok(value) : fail;
  }
  return fail;
}

/** A string, as sent. Numbers and booleans are not strings (Laravel's `string` rule). */
export function coerceString(raw: unknown): Coerced<string> {
  return typeof raw === 'string' ? ok(raw) : fail;
}

/** An array: a JSON array, a JSON-encoded array in a form value, or repeated `name[]` parts. */
export function coerceArray(raw: unknown): Coerced<unknown[]> {
  if (Array.isArray(raw)) return ok(raw);
  if (typeof raw === 'string' && raw.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed)) return ok(parsed);
    } catch {
      return fail;
    }
  }
  return fail;
}

/** One string or a list of strings (embedding `input`); a JSON-encoded list in a form is accepted. */
export function coerceTextOrTexts(raw: unknown): Coerced<string | string[]> {
  if (typeof raw === 'string') {
    const list = raw.trim().startsWith('[') ? coerceArray(raw) : fail;
    if (list.ok && list.value.every((v) => typeof v === 'string')) return ok(list.value);
    return ok(raw);
  }
  if (Array.isArray(raw) && raw.every((v) => typeof v === 'string')) return ok(raw);
  return fail;
}

/** LoRA list: `[{ name, weight }]` as an array or a JSON string; weights may be numeric strings. */
export function coerceLoras(raw: unknown): Coerced<{ name: string; weight: number }[]> {
  const list = coerceArray(raw);
  if (!list.ok) return fail;
  const out: { name: string; weight: number }[] = [];
  for (const item of list.value) {
    if (typeof item !== 'object' || item === null) return fail;
    const { name, weight } = item as { name?: unknown; weight?: unknown };
    const w = weight === undefined ? ok(1) : coerceNumber(weight);
    if (typeof name !== 'string' || !w.ok || w.value < 0) return fail;
    out.push({ name, weight: w.value });
  }
  return ok(out);
}
