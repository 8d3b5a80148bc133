import type { ModelInfo } from '../../service/index.js';
import type { FieldSpec } from '../../service/index.js';
import { jsonType, showValue } from '../schema/json-type.js';

/**
 * Converts a rendered value to the field's type where the intent is clear: expressions render
 * CSV cells and inputs as strings, so `"3"` becomes 3 for a number field and `"true"` true for
 * a boolean one; a number becomes a string for a string field.
 */
export function coerceFieldValue(field: FieldSpec, value: unknown): unknown {
  if ((field.type === 'integer' || field.type === 'number') && typeof value === 'string' && value.trim() !== '') {
    const number = Number(value);
    return Number.isFinite(number) ? number : value;
  }
  if (field.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if ((field.type === 'string' || field.type === 'file') && typeof value === 'number') return String(value);
  return value;
}

/** Why a (coerced) value does not fit the field's own rules, or undefined when it does. */
export function checkFieldValue(field: FieldSpec, value: unknown): string | undefined {
  const type = jsonType(value);
  switch (field.type) {
    case 'string':
    case 'file':
      if (typeof value !== 'string') return `expected ${field.type === 'file' ? 'a file path' : 'string'}, got ${type}`;
      if (field.enum && !field.enum.includes(value)) return `expected one of ${field.enum.map(showValue).join(', ')}, got ${showValue(value)}`;
      if (field.minLength !== undefined && value.length < field.minLength) return `expected at least ${field.minLength} characters, got ${value.length}`;
      if (field.maxLength !== undefined && value.length > field.maxLength) return `expected at most ${field.maxLength} characters, got ${value.length}`;
      if (field.https && !value.startsWith('https://')) return `expected an https:// URL, got ${showValue(value)}`;
      if (field.url && !/^https?:\/\//.test(value)) return `expected a URL starting with http:// or https://, got ${showValue(value)}`;
      return undefined;
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `expected ${field.type}, got ${type}`;
      if (field.type === 'integer' && !Number.isInteger(value)) return `expected integer, got ${value}`;
      if (field.enum && !field.enum.includes(value)) return `expected one of ${field.enum.map(showValue).join(', ')}, got ${value}`;
      if (field.min !== undefined && value < field.min) return `expected at least ${field.min}, got ${value}`;
      if (field.max !== undefined && value > field.max) return `expected at most ${field.max}, got ${value}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected boolean, got ${type}`;
    case 'files':
    case 'text-or-texts':
    case 'array': {
      const list = Array.isArray(value) ? value : field.type === 'array' ? undefined : [value];
      if (!list) return `expected array, got ${type}`;
      if (field.maxItems !== undefined && list.length > field.maxItems) return `expected at most ${field.maxItems} items, got ${list.length}`;
      if (field.type !== 'array' && list.some((v) => typeof v !== 'string')) return `expected ${field.type === 'files' ? 'file paths' : 'strings'}, got ${type === 'array' ? 'a list with other values' : type}`;
      return undefined;
    }
  }
}

/**
 * Why a value is outside the chosen model's `info.limits` for this field, or undefined. Numbers
 * are bounded by min/max, texts by their length, lists by a count; `oneOf` lists allowed values.
 */
export function checkModelLimits(field: FieldSpec, value: unknown, model: ModelInfo): string | undefined {
  const keys = field.limits;
  if (!keys) return checkModelList(field, value, model);
  const limits = model.info.limits;
  const model_ = `model ${model.slug}`;
  const measured = typeof value === 'number' ? value : typeof value === 'string' && field.type === 'string' ? value.length : Array.isArray(value) ? value.length : undefined;
  const unit = typeof value === 'string' ? ' characters' : Array.isArray(value) ? ' items' : '';
  const min = keys.min === undefined ? undefined : limits[keys.min];
  const max = keys.max === undefined ? undefined : limits[keys.max];
  const count = keys.maxCount === undefined ? undefined : limits[keys.maxCount];
  if (measured !== undefined && typeof min === 'number' && measured < min) return `expected at least ${min}${unit} for ${model_} (info.limits.${keys.min}), got ${measured}`;
  if (measured !== undefined && typeof max === 'number' && measured > max) return `expected at most ${max}${unit} for ${model_} (info.limits.${keys.max}), got ${measured}`;
  if (Array.isArray(value) && typeof count === 'number' && value.length > count) return `expected at most ${count} items for ${model_} (info.limits.${keys.maxCount}), got ${value.length}`;
  const allowed = keys.oneOf === undefined ? undefined : limits[keys.oneOf];
  if (Array.isArray(allowed) && (typeof value === 'string' || typeof value === 'number') && !allowed.includes(value)) {
    return `expected one of ${allowed.map(showValue).join(', ')} for ${model_} (info.limits.${keys.oneOf}), got ${showValue(value)}`;
  }
  return checkModelList(field, value, model);
}

/**
 * Why a value is not among the languages or voices the chosen model's list item publishes
 * (`languages[].slug`, `languages[].voices[].slug`), or undefined (also when it publishes none).
 */
export function checkModelList(field: FieldSpec, value: unknown, model: ModelInfo): string | undefined {
  if (field.modelList === undefined || typeof value !== 'string' || !Array.isArray(model.languages) || model.languages.length === 0) return undefined;
  const languages = model.languages.filter((l) => typeof l?.slug === 'string');
  const allowed =
    field.modelList === 'languages'
      ? languages.map((l) => l.slug)
      : [...new Set(languages.flatMap((l) => (Array.isArray(l.voices) ? l.voices.flatMap((v: { slug?: unknown }) => (typeof v?.slug === 'string' ? [v.slug] : [])) : [])))];
  if (allowed.length === 0 || allowed.includes(value)) return undefined;
  const shown = allowed.length > 12 ? `${allowed.slice(0, 12).map(showValue).join(', ')}, … (${allowed.length} in all)` : allowed.map(showValue).join(', ');
  const where = field.modelList === 'languages' ? 'languages[].slug' : 'languages[].voices[].slug';
  return `expected one of ${shown} for model ${model.slug} (${where}), got ${showValue(value)}`;
}
