/**
 * Estimates for items whose inputs come from an upstream result not produced yet. Two things
 * are needed: how big each item's result will be (a transcript's characters, an audio's
 * seconds), stated as an assumption with a range and based on what is known upstream; and,
 * for a downstream item, which of its pending fields move its price at all.
 */
import { assertNever } from '../../common/index.js';
import { findField, getTask } from '../../service/index.js';
import type { TaskId } from '../../service/index.js';
import { sizeVariableOf } from './price-classes.js';

/** A point estimate with its range. */
export interface Range {
  readonly point: number;
  readonly low: number;
  readonly high: number;
}

/** What an item's result will be, as far as its size goes. */
export interface OutputFacts {
  /** Characters of a text result. */
  readonly chars?: Range;
  /** Seconds of an audio or video result. */
  readonly seconds?: Range;
  /** The assumption behind the figures, for the report (absent when they follow from the request). */
  readonly assumption?: string;
}

const scale = (r: Range, k: { point: number; low: number; high: number }): Range => ({
  point: r.point * k.point,
  low: r.low * k.low,
  high: r.high * k.high,
});
const exactRange = (v: number): Range => ({ point: v, low: v, high: v });
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Spoken words run about 2.5 per second, about 15 characters with spaces. */
export const TRANSCRIPT_CHARS_PER_SECOND = { point: 15, low: 8, high: 25 } as const;
/** A description names an event every few seconds. */
export const DESCRIPTION_CHARS_PER_SECOND = { point: 5, low: 2, high: 15 } as const;
/** Synthesised speech at speed 1. */
export const SPEECH_CHARS_PER_SECOND = { point: 15, low: 10, high: 20 } as const;

/**
 * The size of an item's result, from its task, its price fields and the value (or range) of
 * its size variable. Undefined when nothing useful is known.
 */
export function describeOutput(task: TaskId, fields: Readonly<Record<string, unknown>>, size: Range | null): OutputFacts | undefined {
  const k = TRANSCRIPT_CHARS_PER_SECOND;
  switch (task) {
    case 'audio.transcribe':
      if (!size) return undefined;
      return {
        chars: scale(size, k),
        assumption: `transcript ≈ ${k.point} characters per second of source audio (range ${k.low}–${k.high})`,
      };
    case 'video.describe': {
      if (!size) return undefined;
      const d = DESCRIPTION_CHARS_PER_SECOND;
      return { chars: scale(size, d), assumption: `description ≈ ${d.point} characters per second of video (range ${d.low}–${d.high})` };
    }
    case 'audio.speech': {
      if (!size) return undefined;
      const s = SPEECH_CHARS_PER_SECOND;
      const speed = num(fields['speed']) ?? 1;
      return {
        seconds: { point: size.point / s.point / speed, low: size.low / s.high / speed, high: size.high / s.low / speed },
        assumption: `speech ≈ ${s.point} characters per second at speed 1 (range ${s.low}–${s.high})`,
      };
    }
    case 'audio.music': {
      const duration = num(fields['duration']);
      return duration === undefined ? undefined : { seconds: exactRange(duration) };
    }
    case 'video.generate':
    case 'video.animate':
    case 'video.audio-sync': {
      const frames = num(fields['frames']);
      const fps = num(fields['fps']);
      return frames !== undefined && fps !== undefined && fps > 0 ? { seconds: exactRange(frames / fps) } : undefined;
    }
    case 'video.upscale':
      return size ? { seconds: size } : undefined;
    // Results whose size nothing downstream prices by (yet).
    case 'image.generate':
    case 'image.edit':
    case 'image.ocr':
    case 'image.remove-background':
    case 'image.upscale':
    case 'video.replace':
    case 'video.remove-background':
    case 'text.embed':
    case 'prompt.enhance':
      return undefined;
    default:
      return assertNever(task, 'task');
  }
}

/** Facts of several upstream items feeding one downstream item (a gather): sizes add up. */
export function sumOutputs(facts: readonly (OutputFacts | undefined)[]): OutputFacts | undefined {
  if (facts.length === 0 || facts.some((f) => f === undefined)) return undefined;
  const known = facts as readonly OutputFacts[];
  if (known.length === 1) return known[0];
  const add = (key: 'chars' | 'seconds'): Range | undefined =>
    known.every((f) => f[key])
      ? known.reduce<Range>((s, f) => ({ point: s.point + f[key]!.point, low: s.low + f[key]!.low, high: s.high + f[key]!.high }), exactRange(0))
      : undefined;
  const chars = add('chars');
  const seconds = add('seconds');
  const assumption = known.find((f) => f.assumption)?.assumption;
  return { ...(chars ? { chars } : {}), ...(seconds ? { seconds } : {}), ...(assumption ? { assumption } : {}) };
}

/**
 * Fields known not to move a task's price (the public rates depend on sizes, steps and
 * durations, never on the words of a prompt), so a pending value can be quoted with a placeholder.
 */
const PRICE_NEUTRAL: Readonly<Record<TaskId, readonly string[]>> = {
  'image.generate': ['prompt', 'negative_prompt', 'seed'],
  'image.edit': ['prompt', 'negative_prompt', 'seed'],
  'image.ocr': ['language'],
  'image.remove-background': [],
  'image.upscale': [],
  'video.generate': ['prompt', 'negative_prompt', 'seed'],
  'video.animate': ['prompt', 'negative_prompt', 'seed'],
  'video.audio-sync': ['prompt', 'negative_prompt', 'seed'],
  'video.replace': ['prompt', 'seed'],
  'video.upscale': [],
  'video.describe': [],
  'video.remove-background': [],
  'audio.music': ['caption', 'lyrics', 'seed', 'keyscale', 'vocal_language'],
  'audio.speech': ['ref_text', 'instruct'],
  'audio.transcribe': [],
  'text.embed': [],
  'prompt.enhance': [],
};

const PLACEHOLDER_TEXT = 'placeholder text for a price quote';

/** How to quote an item with pending fields. */
export type PendingPlan =
  | {
      readonly kind: 'estimate';
      /** Values for required price-neutral fields (others are left out). */
      readonly placeholders: Readonly<Record<string, unknown>>;
      /** Price-neutral fields that were pending. */
      readonly neutral: readonly string[];
      /** The range of the size variable, when the size itself is pending. */
      readonly size: Range | null;
      readonly assumptions: readonly string[];
    }
  | { readonly kind: 'unknown'; readonly reason: string };

/** Decides how an item of `task` whose `pending` fields come from `upstream` can be quoted. */
export function planPending(task: TaskId, pending: readonly string[], upstream: { step: string | null; facts: OutputFacts | undefined }): PendingPlan {
  const spec = getTask(task);
  const variable = sizeVariableOf(task);
  const neutralSet = new Set(PRICE_NEUTRAL[task] ?? []);
  const placeholders: Record<string, unknown> = {};
  const neutral: string[] = [];
  const assumptions: string[] = [];
  let size: Range | null = null;
  const from = upstream.step ? `step ${upstream.step}` : 'an upstream step';
  for (const name of pending) {
    const field = findField(spec, name);
    if (neutralSet.has(name)) {
      neutral.push(name);
      if (field?.required) placeholders[name] = field.type === 'integer' || field.type === 'number' ? (field.default ?? -1) : PLACEHOLDER_TEXT;
      continue;
    }
    if (variable && variable.replaces === name) {
      const facts = upstream.facts;
      const range = variable.measure === 'characters' ? facts?.chars : facts?.seconds;
      if (!range) {
        return { kind: 'unknown', reason: `the price depends on the length of \`${name}\` (from ${from}, not produced yet), and nothing upstream tells how long it will be` };
      }
      size = variable.integer
        ? { point: Math.max(1, Math.round(range.point)), low: Math.max(1, Math.floor(range.low)), high: Math.max(1, Math.ceil(range.high)) }
        : range;
      if (facts?.assumption) assumptions.push(facts.assumption);
      continue;
    }
    return { kind: 'unknown', reason: `the price depends on \`${name}\` (from ${from}, not produced yet), and there is no basis to estimate it` };
  }
  if (neutral.length > 0) assumptions.push(`the price does not depend on ${neutral.map((n) => `\`${n}\``).join(', ')} (quoted without the upstream value)`);
  return { kind: 'estimate', placeholders, neutral, size, assumptions };
}
