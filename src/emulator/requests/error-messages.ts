/**
 * Laravel's validation messages, as the service prints them (docs/deapi-contract.md#errors; public docs:
 * "The width field must be at least 512. (and 2 more errors)").
 */
import type { FieldErrors } from '../types.js';

/** A field name as Laravel prints it: `include_ts` → `include ts`. */
export function attributeName(field: string): string {
  return field.replace(/\[\]$/, '').replaceAll('_', ' ');
}

const list = (fields: readonly string[]): string => fields.map(attributeName).join(' / ');

/** Message templates, each taking the raw field name. */
export const MESSAGES = {
  required: (f: string) => `The ${attributeName(f)} field is required.`,
  integer: (f: string) => `The ${attributeName(f)} field must be an integer.`,
  numeric: (f: string) => `The ${attributeName(f)} field must be a number.`,
  boolean: (f: string) => `The ${attributeName(f)} field must be true or false.`,
  string: (f: string) => `The ${attributeName(f)} field must be a string.`,
  array: (f: string) => `The ${attributeName(f)} field must be an array.`,
  minNumber: (f: string, min: number) => `The ${attributeName(f)} field must be at least ${min}.`,
  maxNumber: (f: string, max: number) => `The ${attributeName(f)} field must not be greater than ${max}.`,
  minLength: (f: string, min: number) => `The ${attributeName(f)} field must be at least ${min} characters.`,
  maxLength: (f: string, max: number) => `The ${attributeName(f)} field must not be greater than ${max} characters.`,
  maxItems: (f: string, max: number) => `The ${attributeName(f)} field must not have more than ${max} items.`,
  maxKilobytes: (f: string, kb: number) => `The ${attributeName(f)} field must not be greater than ${kb} kilobytes.`,
  fileType: (f: string, formats: readonly string[]) => `The ${attributeName(f)} field must be a file of type: ${formats.join(', ')}.`,
  file: (f: string) => `The ${attributeName(f)} field must be a file.`,
  stream: (f: string, kind: 'video' | 'audio') => `The ${attributeName(f)} field must contain ${kind === 'audio' ? 'an audio' : 'a video'} stream.`,
  longerThan: (f: string, max: number) => `The ${attributeName(f)} field must not be longer than ${max} seconds.`,
  enum: (f: string) => `The selected ${attributeName(f)} is invalid.`,
  url: (f: string) => `The ${attributeName(f)} field must be a valid URL.`,
  https: (f: string) => `The ${attributeName(f)} field must start with one of the following: https://.`,
  platform: (f: string) =>
    `The ${attributeName(f)} field must be a link to a supported platform (YouTube, X/Twitter, Twitch, Kick, TikTok, X Spaces).`,
  requiredWith: (f: string, other: string) => `The ${attributeName(f)} field is required when ${attributeName(other)} is present.`,
  requiredIf: (f: string, other: string, value: string) =>
    `The ${attributeName(f)} field is required when ${attributeName(other)} is ${value}.`,
  requiredWithout: (f: string, others: readonly string[]) => `The ${attributeName(f)} field is required when ${list(others)} is not present.`,
  prohibits: (f: string, others: readonly string[]) => `The ${attributeName(f)} field prohibits ${list(others)} from being present.`,
  prohibitedUnless: (f: string, other: string, value: string) =>
    `The ${attributeName(f)} field is prohibited unless ${attributeName(other)} is in ${value}.`,
  prohibited: (f: string) => `The ${attributeName(f)} field is prohibited.`,
  modelUnknown: () => 'The selected model does not exist.',
  modelTask: (title: string) => `The selected model does not support ${title}.`,
  diarization: () => 'The selected model does not support diarization.',
  tiktok: () => 'The selected model does not support TikTok sources.',
} as const;

/** Adds a message under `field`, keeping the order fields first failed in. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  const messages = errors[field] ?? [];
  if (!messages.includes(message)) messages.push(message);
  errors[field] = messages;
}

/** The 422 `message`: the first message, plus "(and N more errors)" counting every other message. */
export function summariseErrors(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}
