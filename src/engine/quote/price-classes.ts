/**
 * Price classes: requests of one task that share every price-twin field but one continuous
 * size variable (seconds of media, characters of text). Within a class the price is expected
 * to be a line in that variable, which the quote checks before relying on it (price-fit.ts).
 * Identity of a request and of a class is a sha256 over canonical JSON, files by digest.
 */
import { createHash } from 'node:crypto';
import { endpointFields, ENDPOINTS } from '../../service/index.js';
import type { TaskId } from '../../service/index.js';
import { canonicalJson } from '../../common/index.js';

/** The size variable of a task's price twin, and the submission field it stands in for. */
export interface SizeVariable {
  /**
   * Price-twin field carrying the size (`duration_seconds`, `duration`, `count_text`); for a
   * placeholder variable, the name the size is shown under (`input_characters`).
   */
  readonly name: string;
  /**
   * `twin`: the twin takes the size in place of the replaced field. `placeholder-text`: the twin
   * takes only the text itself, so a pending text is quoted with a neutral text of that many
   * characters (the real text is sent whenever it is known).
   */
  readonly via: 'twin' | 'placeholder-text';
  /** The field it replaces in a quote: a file whose length is read locally, or a text counted. */
  readonly replaces: string | null;
  /** How the replaced field is measured. */
  readonly measure: 'media-seconds' | 'characters' | null;
  /** Whole numbers only (the twin takes an integer). */
  readonly integer: boolean;
  /** Unit for people. */
  readonly unit: string;
}

/**
 * Tasks whose price twin takes a size instead of (or as) a field. Checked against the
 * catalogue's `priceExactlyOneOf` groups by the tests: the twin must accept the variable in
 * place of the replaced field.
 */
const SIZE_VARIABLES: Readonly<Record<TaskId, SizeVariable | null>> = {
  'audio.transcribe': { name: 'duration_seconds', via: 'twin', replaces: 'source_file', measure: 'media-seconds', integer: false, unit: 's' },
  'video.describe': { name: 'duration_seconds', via: 'twin', replaces: 'video_file', measure: 'media-seconds', integer: false, unit: 's' },
  'video.upscale': { name: 'duration', via: 'twin', replaces: 'video', measure: 'media-seconds', integer: false, unit: 's' },
  'video.replace': { name: 'duration', via: 'twin', replaces: 'video', measure: 'media-seconds', integer: false, unit: 's' },
  'video.remove-background': { name: 'duration', via: 'twin', replaces: 'video', measure: 'media-seconds', integer: false, unit: 's' },
  'audio.speech': { name: 'count_text', via: 'twin', replaces: 'text', measure: 'characters', integer: true, unit: 'characters' },
  'audio.music': { name: 'duration', via: 'twin', replaces: null, measure: null, integer: true, unit: 's' },
  'text.embed': { name: 'input_characters', via: 'placeholder-text', replaces: 'input', measure: 'characters', integer: true, unit: 'characters' },
  'image.generate': null,
  'image.edit': null,
  'image.ocr': null,
  'image.remove-background': null,
  'image.upscale': null,
  'video.generate': null,
  'video.animate': null,
  'video.audio-sync': null,
  'prompt.enhance': null,
};

/** The size variable of `task`'s price twin, or undefined when its price is quoted request by request. */
export function sizeVariableOf(task: TaskId): SizeVariable | undefined {
  return SIZE_VARIABLES[task] ?? undefined;
}

/** Fields that only say where a result is reported: never part of a price request. */
const NOT_PRICED: ReadonlySet<string> = new Set(['webhook_url', 'webhook_secret']);

const PRICE_FIELDS = new Map<string, ReadonlySet<string>>();
for (const endpoint of ENDPOINTS) {
  if (endpoint.kind === 'price' && endpoint.version === 'v2' && endpoint.task) {
    PRICE_FIELDS.set(endpoint.task.id, new Set(endpointFields(endpoint).map((f) => f.name)));
  }
}

/** Whether the task's v2 price twin takes `field` at all (a field it does not take cannot move the price). */
export function twinTakes(task: TaskId, field: string): boolean {
  return !NOT_PRICED.has(field) && (PRICE_FIELDS.get(task)?.has(field) ?? true);
}

/** `fields` restricted to what the task's v2 price twin takes (webhooks and omitted files dropped). */
export function priceTwinFields(task: TaskId, fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const accepted = PRICE_FIELDS.get(task);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || NOT_PRICED.has(name)) continue;
    if (accepted && !accepted.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** True for a `{ path }` file reference. */
export function isFileValue(value: unknown): value is { readonly path: string } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { path?: unknown }).path === 'string';
}

/** `fields` with every file reference replaced by `{ sha256 }` of its content. */
export async function withFileDigests(
  fields: Readonly<Record<string, unknown>>,
  digest: (path: string) => Promise<string>,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (isFileValue(value)) out[name] = { sha256: await digest(value.path) };
    else if (Array.isArray(value) && value.some(isFileValue)) {
      out[name] = await Promise.all(value.map(async (v) => (isFileValue(v) ? { sha256: await digest(v.path) } : v)));
    } else out[name] = value;
  }
  return out;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Identity of a price request: same task and same canonical fields (files by digest) → same key. */
export function requestKey(task: TaskId, digestedFields: Readonly<Record<string, unknown>>): string {
  return sha256(canonicalJson({ v: 1, task, fields: digestedFields }));
}

/** Words of the neutral text a pending text is quoted with (ordinary words, so tokenizers count it as prose). */
const PLACEHOLDER_WORDS = 'the quick brown fox jumps over the lazy dog and keeps running along the quiet river bank ';

/** A neutral text of exactly `chars` characters. */
export function placeholderText(chars: number): string {
  const n = Math.max(1, Math.round(chars));
  return PLACEHOLDER_WORDS.repeat(Math.ceil(n / PLACEHOLDER_WORDS.length)).slice(0, n);
}

/** `chars` characters of neutral text split over `parts` texts (a gathered list of texts), or one text. */
export function placeholderTexts(chars: number, parts: number): string | string[] {
  if (parts <= 1) return placeholderText(chars);
  const each = Math.floor(chars / parts);
  return Array.from({ length: parts }, (_, i) => placeholderText(i === parts - 1 ? chars - each * (parts - 1) : each));
}

/** Identity of a price class: the request without its size variable. */
export function classKey(task: TaskId, variable: string, digestedFields: Readonly<Record<string, unknown>>): string {
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(digestedFields)) if (name !== variable) rest[name] = value;
  return sha256(canonicalJson({ v: 1, task, variable, fields: rest }));
}
