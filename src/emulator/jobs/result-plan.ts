/**
 * What a job will produce, reduced to the few numbers needed to make the file later: results
 * are rendered at download time, so a job keeps only this small plan (benchmarks hold 100,000
 * jobs at once).
 */
import { createHash } from 'node:crypto';
import { assertNever } from '../../common/index.js';
import { limitNumber } from '../requests/model-limits.js';
import { resolvePreset } from '../account/prices.js';
import { describeSource } from '../requests/request-source.js';
import type { ResolvedRequest, ValidFile } from '../types.js';

/** Audio result formats: MP3, FLAC, and WAV (also served for `ogg`). */
export type AudioFormat = 'mp3' | 'wav' | 'flac';

export type ResultPlan =
  | { readonly kind: 'image'; readonly width: number; readonly height: number; readonly alpha: boolean }
  | { readonly kind: 'audio'; readonly seconds: number; readonly format: AudioFormat; readonly sampleRate: number }
  | { readonly kind: 'video'; readonly seconds: number; readonly width: number; readonly height: number; readonly fps: number; readonly audio: boolean }
  | {
      readonly kind: 'transcript';
      readonly seconds: number;
      readonly json: boolean;
      readonly language: string;
      readonly words: boolean;
      readonly speakers: boolean;
    }
  | { readonly kind: 'description'; readonly seconds: number; readonly preset: string }
  | { readonly kind: 'ocr'; readonly json: boolean; readonly language: string }
  | { readonly kind: 'embeddings'; readonly model: string; readonly inputs: readonly number[] }
  | { readonly kind: 'none' };

/** Generated pictures are at most this many pixels on a side (to stay cheap). */
export const MAX_IMAGE_SIDE = 1024;
/** Seconds of speech per character of text (about 15 characters a second). */
const SPEECH_CHARS_PER_SECOND = 15;

const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

function capped(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, MAX_IMAGE_SIDE / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

function firstImage(request: ResolvedRequest): ValidFile | undefined {
  const f = request.files;
  return f['image']?.[0] ?? f['images']?.[0] ?? f['first_frame_image']?.[0];
}

function imagePlan(request: ResolvedRequest, factor: number, alpha: boolean): ResultPlan {
  const v = request.values;
  const media = firstImage(request)?.media;
  const width = num(v['width'], media?.width ?? 1024) * factor;
  const height = num(v['height'], media?.height ?? 1024) * factor;
  return { kind: 'image', ...capped(width, height), alpha };
}

/** A 32-bit hash of a text, so equal inputs give equal embeddings. */
export function textHash(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

function embeddingInputs(input: unknown): number[] {
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map(String) : [];
  return texts.map(textHash);
}

/** The plan of the result of a validated request. */
export function planResult(request: ResolvedRequest): ResultPlan {
  const v = request.values;
  const task = request.endpoint.task?.id;
  if (task === undefined) return { kind: 'none' };
  const source = describeSource(task, v, request.files);
  const format = (f: unknown): AudioFormat => (f === 'mp3' || f === undefined ? 'mp3' : f === 'flac' ? 'flac' : 'wav');
  switch (task) {
    case 'image.generate':
    case 'image.edit':
      return imagePlan(request, 1, false);
    case 'image.upscale':
      return imagePlan(request, limitNumber(request.model, 'max_scale') ?? 2, false);
    case 'image.remove-background':
      return imagePlan(request, 1, true);
    case 'image.ocr':
      return { kind: 'ocr', json: v['format'] === 'json', language: typeof v['language'] === 'string' ? v['language'] : 'en' };
    case 'video.generate':
    case 'video.animate':
    case 'video.audio-sync': {
      const fps = num(v['fps'], 24);
      const size = { width: num(v['width'], 768), height: num(v['height'], 512) };
      return { kind: 'video', seconds: num(v['frames'], 96) / Math.max(1, fps), ...size, fps, audio: task === 'video.audio-sync' };
    }
    case 'video.replace':
    case 'video.upscale':
    case 'video.remove-background': {
      const scale = task === 'video.upscale' ? num(v['scale'], 2) : 1;
      const size = { width: num(v['width'], 640) * scale, height: num(v['height'], 360) * scale };
      return { kind: 'video', seconds: Math.max(1, source.seconds), ...size, fps: 24, audio: false };
    }
    case 'video.describe':
      return { kind: 'description', seconds: source.seconds, preset: resolvePreset(request.model, v['preset']) };
    case 'audio.speech': {
      const text = typeof v['text'] === 'string' ? [...v['text']].length : num(v['count_text'], 0);
      return { kind: 'audio', seconds: Math.max(1, text / SPEECH_CHARS_PER_SECOND), format: format(v['format']), sampleRate: num(v['sample_rate'], 24_000) };
    }
    case 'audio.music':
      return { kind: 'audio', seconds: num(v['duration'], 30), format: format(v['format']), sampleRate: 16_000 };
    case 'audio.transcribe': {
      const lang = typeof v['lang'] === 'string' && v['lang'] !== 'auto' ? v['lang'].split('-')[0] ?? 'en' : 'en';
      const words = v['ts_level'] === 'word' && request.model?.slug === 'WhisperLargeV3Ct2';
      return { kind: 'transcript', seconds: source.seconds, json: v['include_ts'] === true || v['diarize'] === true, language: lang, words, speakers: v['diarize'] === true };
    }
    case 'text.embed':
      return { kind: 'embeddings', model: request.model?.slug ?? '', inputs: embeddingInputs(v['input']) };
    case 'prompt.enhance':
      // Answered at once, no job.
      return { kind: 'none' };
    default:
      return assertNever(task, 'task');
  }
}
