/**
 * What an item's result will be, as far as prices downstream go, before it exists: a
 * transcript's characters (plain or timestamped JSON), a description's JSON, an audio's or a
 * video's seconds, an image's pixel size. Figures that follow from what the workflow fixes
 * (an image's width and height, a video's frames and fps, a track's duration) are exact;
 * figures about speech or a description's text are stated assumptions with a range. Also the
 * fields of each task known not to move its price, so a pending value can be left out.
 */
import { assertNever } from '../../common/index.js';
import { findCatalogueModel } from '../../service/index.js';
import type { TaskId } from '../../service/index.js';

/** A point estimate with its range. */
export interface Range {
  readonly point: number;
  readonly low: number;
  readonly high: number;
}

/** Pixel size of an image. */
export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

/** What an item's result will be, as far as its size goes. */
export interface OutputFacts {
  /** Characters of the result's text as `steps.<id>.text` gives it (a timestamped transcript's or a description's whole JSON). */
  readonly text?: Range;
  /** Seconds of an audio or video result. */
  readonly seconds?: Range;
  /** Pixel size of an image result. */
  readonly size?: ImageSize;
  /** The assumptions behind the figures; none when they follow from what the workflow fixes. */
  readonly assumptions: readonly string[];
}

/** What is known of the item's own media input (a local file, or an upstream result). */
export interface InputMedia {
  readonly seconds?: Range;
  readonly size?: ImageSize;
  readonly assumptions?: readonly string[];
}

const exactRange = (v: number): Range => ({ point: v, low: v, high: v });
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const times = (r: Range, k: Range): Range => ({ point: r.point * k.point, low: r.low * k.low, high: r.high * k.high });
const plus = (a: Range, b: Range): Range => ({ point: a.point + b.point, low: a.low + b.low, high: a.high + b.high });

/** Spoken words per second of source audio: conversation runs ~150 a minute; pauses and music lower it. */
export const WORDS_PER_SECOND: Range = { point: 2.5, low: 1, high: 3.5 };
/** Characters per transcribed word, with its space and punctuation. */
export const CHARS_PER_WORD: Range = { point: 6, low: 5, high: 7 };
/** Characters of times and keys per timestamped segment, per second of source (~40 per ~5 s segment; 30 per 10 s to 70 per 2 s). */
export const SEGMENT_CHARS_PER_SECOND: Range = { point: 8, low: 3, high: 35 };
/** Characters of times and keys per word with word-level timestamps. */
export const WORD_TIMESTAMP_CHARS: Range = { point: 40, low: 35, high: 60 };
/** Characters of a speaker label per second of source (~25 per segment). */
export const SPEAKER_CHARS_PER_SECOND: Range = { point: 5, low: 2, high: 13 };
/** Seconds between the events of a video description, per preset (ranges: twice as often to half as often). */
export const DESCRIPTION_EVENT_SECONDS: Readonly<Record<string, number>> = { fast: 20, balanced: 10, detail: 5 };
/** Characters of one described event with its times, plus its share of the scenes. */
export const DESCRIPTION_EVENT_CHARS = 120;
/** Synthesised speech at speed 1. */
export const SPEECH_CHARS_PER_SECOND: Range = { point: 15, low: 10, high: 20 };

const TRANSCRIPT_TEXT = times(WORDS_PER_SECOND, CHARS_PER_WORD);
/** `2.5 words per second (range 1–3.5)`. */
const r = (x: Range, unit: string): string => `${x.point} ${unit} (range ${x.low}–${x.high})`;

/** The assumption behind a plain transcript's length. */
export const TRANSCRIPT_ASSUMPTION = `transcript ≈ ${r(WORDS_PER_SECOND, 'words per second of source audio')}, ${r(CHARS_PER_WORD, 'characters per word with its space')}`;

function transcriptFacts(fields: Readonly<Record<string, unknown>>, seconds: Range, model: string | null): OutputFacts {
  const plain = times(seconds, TRANSCRIPT_TEXT);
  const diarize = fields['diarize'] === true;
  const json = fields['include_ts'] === true || diarize;
  if (!json) return { text: plain, assumptions: [TRANSCRIPT_ASSUMPTION] };
  const words = fields['ts_level'] === 'word' && model === 'WhisperLargeV3Ct2';
  let extra = times(seconds, SEGMENT_CHARS_PER_SECOND);
  const notes = [`timestamped JSON (include_ts) ≈ the text twice (whole and in segments) plus ${r(SEGMENT_CHARS_PER_SECOND, 'characters of times and keys per second')}`];
  if (words) {
    extra = plus(extra, times(times(seconds, WORDS_PER_SECOND), WORD_TIMESTAMP_CHARS));
    notes.push(`word timestamps ≈ ${r(WORD_TIMESTAMP_CHARS, 'characters per word')}`);
  }
  if (diarize) {
    extra = plus(extra, times(seconds, SPEAKER_CHARS_PER_SECOND));
    notes.push(`speaker labels ≈ ${r(SPEAKER_CHARS_PER_SECOND, 'characters per second')}`);
  }
  return { text: plus(times(plain, exactRange(2)), extra), assumptions: [TRANSCRIPT_ASSUMPTION, notes.join('; ')] };
}

function descriptionFacts(fields: Readonly<Record<string, unknown>>, seconds: Range): OutputFacts {
  const preset = typeof fields['preset'] === 'string' && fields['preset'] in DESCRIPTION_EVENT_SECONDS ? fields['preset'] : 'balanced';
  const every = DESCRIPTION_EVENT_SECONDS[preset]!;
  const perSecond: Range = { point: DESCRIPTION_EVENT_CHARS / every, low: DESCRIPTION_EVENT_CHARS / every / 2, high: (DESCRIPTION_EVENT_CHARS / every) * 2.5 };
  const assumption = `description JSON ≈ one event every ${every} s of video (${preset}; range half to 2.5 times as many), ${DESCRIPTION_EVENT_CHARS} characters each with its times and scenes`;
  return { text: times(seconds, perSecond), assumptions: [assumption] };
}

function upscaleFactor(model: string | null): number {
  const limit = model ? findCatalogueModel(model)?.info.limits['max_scale'] : undefined;
  return typeof limit === 'number' && limit > 0 ? limit : 2;
}

/**
 * The size of an item's result, from its task, its price fields, the value (or range) of its
 * size variable and what is known of its media input. Undefined when nothing useful is known.
 */
export function describeOutput(
  task: TaskId,
  fields: Readonly<Record<string, unknown>>,
  size: Range | null,
  input: InputMedia = {},
  model: string | null = null,
): OutputFacts | undefined {
  const from = input.assumptions ?? [];
  switch (task) {
    case 'audio.transcribe':
      return size ? withAssumptions(transcriptFacts(fields, size, model), from) : undefined;
    case 'video.describe':
      return size ? withAssumptions(descriptionFacts(fields, size), from) : undefined;
    case 'audio.speech': {
      if (!size) return undefined;
      const s = SPEECH_CHARS_PER_SECOND;
      const speed = num(fields['speed']) ?? 1;
      const seconds = { point: size.point / s.point / speed, low: size.low / s.high / speed, high: size.high / s.low / speed };
      return { seconds, assumptions: [...from, `speech ≈ ${r(s, 'characters per second at speed 1')}`] };
    }
    case 'audio.music': {
      const duration = num(fields['duration']);
      return duration === undefined ? undefined : { seconds: exactRange(duration), assumptions: [] };
    }
    case 'video.generate':
    case 'video.animate':
    case 'video.audio-sync': {
      const frames = num(fields['frames']);
      const fps = num(fields['fps']);
      const [width, height] = [num(fields['width']), num(fields['height'])];
      if (frames === undefined || fps === undefined || fps <= 0) return undefined;
      return { seconds: exactRange(frames / fps), ...(width && height ? { size: { width, height } } : {}), assumptions: [] };
    }
    case 'video.upscale':
    case 'video.replace':
    case 'video.remove-background': {
      const seconds = size ?? input.seconds;
      return seconds ? { seconds, assumptions: from } : undefined;
    }
    case 'image.generate': {
      const [width, height] = [num(fields['width']), num(fields['height'])];
      return width && height ? { size: { width, height }, assumptions: [] } : undefined;
    }
    case 'image.edit': {
      const [width, height] = [num(fields['width']), num(fields['height'])];
      if (width && height) return { size: { width, height }, assumptions: [] };
      return input.size ? { size: input.size, assumptions: from } : undefined;
    }
    case 'image.upscale': {
      if (!input.size) return undefined;
      const k = upscaleFactor(model);
      return { size: { width: input.size.width * k, height: input.size.height * k }, assumptions: from };
    }
    case 'image.remove-background':
      return input.size ? { size: input.size, assumptions: from } : undefined;
    // Results whose size nothing tells before they exist (an OCR's text depends on the image).
    case 'image.ocr':
    case 'text.embed':
    case 'prompt.enhance':
      return undefined;
    default:
      return assertNever(task, 'task');
  }
}

function withAssumptions(facts: OutputFacts, more: readonly string[]): OutputFacts {
  return more.length === 0 ? facts : { ...facts, assumptions: [...more, ...facts.assumptions] };
}

/**
 * Fields known not to move a task's price (the public rates depend on sizes, steps and
 * durations, never on the words of a prompt), so a pending value can be quoted with a placeholder.
 */
export const PRICE_NEUTRAL: Readonly<Record<TaskId, readonly string[]>> = {
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
