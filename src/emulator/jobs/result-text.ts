/**
 * Text results, generated deterministically from a job's seed: transcripts (plain text, or
 * JSON segments when timestamps were asked for), video descriptions, OCR and embeddings.
 */
import { createRandom } from '../config/random.js';

const WORDS = (
  'the a signal river morning quiet city light open market station window garden story people ' +
  'early evening simple careful bright long short voice road music table paper north south ' +
  'bridge harbour winter summer letter number memory moment little great across under over ' +
  'between before after around inside outside again always never often slowly quickly today'
).split(' ');
/** About 2.5 spoken words per second of source. */
const WORDS_PER_SECOND = 2.5;
const SEGMENT_SECONDS = 5;

const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

function sentence(random: () => number, count: number): string {
  const words = Array.from({ length: Math.max(1, count) }, () => WORDS[Math.floor(random() * WORDS.length)] ?? 'the');
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

interface TranscriptOptions {
  readonly seconds: number;
  readonly json: boolean;
  readonly language: string;
  readonly words: boolean;
  readonly speakers: boolean;
}

/** A transcript of `seconds` of speech: plain text, or `{ text, language, segments }` JSON. */
export function makeTranscript(seed: number, o: TranscriptOptions): string {
  const random = createRandom(seed, 'transcript');
  const segments: Record<string, unknown>[] = [];
  for (let start = 0; start < o.seconds; start += SEGMENT_SECONDS) {
    const end = Math.min(o.seconds, start + SEGMENT_SECONDS);
    const text = sentence(random, Math.round(end * WORDS_PER_SECOND) - Math.round(start * WORDS_PER_SECOND));
    const segment: Record<string, unknown> = { start: round(start), end: round(end), text };
    if (o.speakers) segment['speaker'] = `SPEAKER_0${Math.floor(start / 30) % 2}`;
    if (o.words) {
      const parts = text.split(' ');
      const step = (end - start) / parts.length;
      segment['words'] = parts.map((word, i) => ({ word, start: round(start + i * step), end: round(start + (i + 1) * step) }));
    }
    segments.push(segment);
  }
  const text = segments.map((s) => s['text']).join(' ');
  if (!o.json) return text;
  return JSON.stringify({ text, language: o.language, ts_level: o.words ? 'word' : 'segment', segments });
}

const SCENES = ['an outdoor street', 'a bright room', 'a stage', 'a park', 'an office', 'a kitchen', 'a shoreline'];
const ACTIONS = ['a person walks into view', 'the camera pans left', 'two people talk', 'text appears on screen', 'the scene cuts to a close-up', 'a car passes by'];
const EVENT_SECONDS: Readonly<Record<string, number>> = { fast: 20, balanced: 10, detail: 5 };
const MAX_EVENTS = 500;

/** A video description: `{ events, scenes, meta }` JSON. */
export function makeDescription(seed: number, seconds: number, preset: string): string {
  const random = createRandom(seed, 'description');
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const step = Math.max(seconds / MAX_EVENTS, EVENT_SECONDS[preset] ?? 10);
  const events: Record<string, unknown>[] = [];
  for (let start = 0; start < seconds; start += step) {
    const end = Math.min(seconds, start + step);
    events.push({ start: round(start), end: round(end), description: `In ${pick(SCENES)}, ${pick(ACTIONS)}.`, edge_distance: round(random(), 3) });
  }
  const sceneLength = Math.max(step * 3, 1);
  const scenes: Record<string, unknown>[] = [];
  for (let start = 0; start < seconds; start += sceneLength) {
    scenes.push({ start: round(start), end: round(Math.min(seconds, start + sceneLength)), description: `A scene in ${pick(SCENES)}.` });
  }
  return JSON.stringify({ events, scenes, meta: { duration: round(seconds), preset } });
}

/** OCR output: plain text, or `{ text, language, blocks }` JSON. */
export function makeOcr(seed: number, json: boolean, language: string): string {
  const random = createRandom(seed, 'ocr');
  const lines = Array.from({ length: 3 + Math.floor(random() * 4) }, () => sentence(random, 4 + Math.floor(random() * 6)));
  const text = lines.join('\n');
  if (!json) return text;
  const blocks = lines.map((line, i) => ({ text: line, bbox: [16, 16 + i * 40, 480, 32], confidence: round(0.9 + random() * 0.09, 3) }));
  return JSON.stringify({ text, language, blocks });
}

const DIMENSIONS = 1024;

/** Embeddings JSON: one unit-length 1024-float vector per input, seeded by the input's hash. */
export function makeEmbeddings(model: string, inputs: readonly number[]): string {
  const data = inputs.map((hash, index) => {
    const random = createRandom(hash, 'embedding');
    const raw = Array.from({ length: DIMENSIONS }, () => random() * 2 - 1);
    const norm = Math.sqrt(raw.reduce((s, x) => s + x * x, 0)) || 1;
    return { index, embedding: raw.map((x) => round(x / norm, 6)) };
  });
  return JSON.stringify({ model, dimensions: DIMENSIONS, data });
}
