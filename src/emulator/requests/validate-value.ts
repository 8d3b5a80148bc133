/**
 * Checks of one non-file request field: type (with Laravel-lenient coercion), the field's
 * fixed rules (range, length, enum, URL, HTTPS) and the chosen model's `info.limits`.
 */
import type { ModelInfo } from '../../service/index.js';
import type { FieldSpec } from '../../service/index.js';
import {
  type Coerced,
  coerceBoolean,
  coerceInteger,
  coerceLoras,
  coerceNumber,
  coerceString,
  coerceTextOrTexts,
} from './coerce.js';
import { MESSAGES } from './error-messages.js';
import { featureFlag, limitList, limitNumber } from './model-limits.js';
import type { ValidationOptions } from '../types.js';
import { parseHttpUrl } from '../media/url-media.js';
import { isPrivateHost } from '../webhooks/webhook-host.js';

/** The coerced value, or the type message. */
export function coerceField(field: FieldSpec, raw: unknown): Coerced<unknown> & { message?: string } {
  const n = field.name;
  switch (field.type) {
    case 'boolean':
      return withMessage(coerceBoolean(raw), MESSAGES.boolean(n));
    case 'integer':
      return withMessage(coerceInteger(raw), MESSAGES.integer(n));
    case 'number':
      return withMessage(coerceNumber(raw), MESSAGES.numeric(n));
    case 'string':
      return withMessage(coerceString(raw), MESSAGES.string(n));
    case 'text-or-texts':
      return withMessage(coerceTextOrTexts(raw), MESSAGES.string(n));
    case 'array':
      return withMessage(coerceLoras(raw), MESSAGES.array(n));
    default:
      return { ok: false, message: MESSAGES.file(n) };
  }
}

function withMessage<T>(result: Coerced<T>, message: string): Coerced<T> & { message?: string } {
  return result.ok ? result : { ok: false, message };
}

const charCount = (text: string): number => [...text].length;

/** Messages for a coerced value against the field's own rules. */
export function checkFixedRules(field: FieldSpec, value: unknown, options: ValidationOptions): string[] {
  const n = field.name;
  const out: string[] = [];
  if (typeof value === 'number') {
    if (field.min !== undefined && value < field.min) out.push(MESSAGES.minNumber(n, field.min));
    if (field.max !== undefined && value > field.max) out.push(MESSAGES.maxNumber(n, field.max));
  }
  if (typeof value === 'string') {
    if (field.minLength !== undefined && charCount(value) < field.minLength) out.push(MESSAGES.minLength(n, field.minLength));
    if (field.maxLength !== undefined && charCount(value) > field.maxLength) out.push(MESSAGES.maxLength(n, field.maxLength));
    if (field.url) {
      const url = parseHttpUrl(value);
      if (!url) out.push(MESSAGES.url(n));
      // With allowPrivateHttpWebhooks the host is checked afterwards (checkWebhookHosts, it may need DNS).
      else if (field.https && url.protocol !== 'https:' && !options.allowHttpWebhooks && !options.allowPrivateHttpWebhooks) {
        out.push(MESSAGES.https(n));
      }
    }
  }
  if (Array.isArray(value) && field.maxItems !== undefined && value.length > field.maxItems) {
    out.push(MESSAGES.maxItems(n, field.maxItems));
  }
  if (field.enum && (typeof value === 'string' || typeof value === 'number') && !field.enum.includes(value)) {
    out.push(MESSAGES.enum(n));
  }
  return out;
}

/**
 * With `allowPrivateHttpWebhooks` (and not `allowHttpWebhooks`): the HTTPS message for every
 * `http:` value of an HTTPS-only field whose host is not loopback or private.
 */
export async function checkWebhookHosts(
  fields: readonly FieldSpec[],
  values: Readonly<Record<string, unknown>>,
  options: ValidationOptions,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (options.allowHttpWebhooks || !options.allowPrivateHttpWebhooks) return out;
  for (const field of fields) {
    const value = values[field.name];
    if (!field.https || typeof value !== 'string') continue;
    const url = parseHttpUrl(value);
    if (url && url.protocol === 'http:' && !(await isPrivateHost(url.hostname))) out[field.name] = MESSAGES.https(field.name);
  }
  return out;
}

/** Messages for a coerced value against the model's `info.limits` (field.limits names the keys). */
export function checkModelLimits(field: FieldSpec, value: unknown, model: ModelInfo | null): string[] {
  const keys = field.limits;
  if (!keys || !model) return [];
  const n = field.name;
  const out: string[] = [];
  const min = limitNumber(model, keys.min);
  const max = limitNumber(model, keys.max);
  if (typeof value === 'number') {
    if (min !== undefined && value < min) out.push(MESSAGES.minNumber(n, min));
    if (max !== undefined && value > max) out.push(MESSAGES.maxNumber(n, max));
  } else if (typeof value === 'string') {
    const length = charCount(value);
    if (min !== undefined && length < min) out.push(MESSAGES.minLength(n, min));
    if (max !== undefined && length > max) out.push(MESSAGES.maxLength(n, max));
  }
  const allowed = limitList(model, keys.oneOf);
  // Presets are honoured only when the model supports them; otherwise the field is ignored.
  const honoured = n !== 'preset' || featureFlag(model, 'supports_presets') === true;
  if (allowed && honoured && (typeof value === 'string' || typeof value === 'number') && !allowed.includes(String(value))) {
    out.push(MESSAGES.enum(n));
  }
  return out;
}
