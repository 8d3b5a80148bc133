/**
 * Renders a job's result file from its plan, at download time: PNG (and JPEG / WebP alternate
 * formats) for images, MP3, FLAC or WAV for audio (ogg requests get WAV), MP4 for video,
 * text or JSON for transcripts, descriptions, OCR and embeddings.
 */
import { makeFlac, makeJpeg, makeMp3, makeMp4, makePng, makeWav, makeWebp } from '../media/index.js';
import type { ResultPlan } from './result-plan.js';
import { makeDescription, makeEmbeddings, makeOcr, makeTranscript } from './result-text.js';
import type { ResultFile } from '../types.js';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json',
};

/** The extension of a plan's main result file. */
export function resultExtension(plan: ResultPlan): string {
  switch (plan.kind) {
    case 'image':
      return 'png';
    case 'audio':
      return plan.format;
    case 'video':
      return 'mp4';
    case 'transcript':
      return plan.json ? 'json' : 'txt';
    case 'ocr':
      return plan.json ? 'json' : 'txt';
    case 'description':
    case 'embeddings':
      return 'json';
    default:
      return 'txt';
  }
}

/** Extensions a plan's result can also be downloaded as (`results_alt_formats`). */
export function alternateExtensions(plan: ResultPlan): readonly string[] {
  return plan.kind === 'image' ? ['jpg', 'webp'] : [];
}

/** The inline text of a text-like result (`result` with return_result_in_response), else null. */
export function renderText(plan: ResultPlan, seed: number): string | null {
  switch (plan.kind) {
    case 'transcript':
      return makeTranscript(seed, plan);
    case 'description':
      return makeDescription(seed, plan.seconds, plan.preset);
    case 'ocr':
      return makeOcr(seed, plan.json, plan.language);
    case 'embeddings':
      return makeEmbeddings(plan.model, plan.inputs);
    default:
      return null;
  }
}

function renderBody(plan: ResultPlan, seed: number, ext: string): Buffer {
  switch (plan.kind) {
    case 'image':
      if (ext === 'jpg') return makeJpeg(plan.width, plan.height);
      if (ext === 'webp') return makeWebp(plan.width, plan.height, [seed & 0xff, (seed >>> 8) & 0xff, (seed >>> 16) & 0xff]);
      return makePng({ width: plan.width, height: plan.height, seed, alpha: plan.alpha });
    case 'audio':
      if (plan.format === 'mp3') return makeMp3(plan.seconds);
      return plan.format === 'flac' ? makeFlac(plan.seconds, plan.sampleRate) : makeWav(plan.seconds, plan.sampleRate);
    case 'video':
      return makeMp4(plan);
    default:
      return Buffer.from(renderText(plan, seed) ?? '', 'utf8');
  }
}

/** The file at extension `ext` (the main one or an alternate format), or undefined. */
export function renderResult(plan: ResultPlan, seed: number, ext: string): ResultFile | undefined {
  if (ext !== resultExtension(plan) && !alternateExtensions(plan).includes(ext)) return undefined;
  return { contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream', body: renderBody(plan, seed, ext) };
}
