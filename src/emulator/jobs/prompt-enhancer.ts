/**
 * The emulator's prompt booster: deterministic, so a workflow that enhances a prompt gets the
 * same text on every run. It appends a descriptive tail suited to the target (`type`), or for
 * the v1 speech booster tidies the text for reading aloud.
 */
import { getTask, TASK_IDS, type TaskId } from '../../service/index.js';
import type { ResolvedRequest } from '../types.js';

/**
 * The tail appended for a prompt aimed at each task, null for tasks with no booster. A booster
 * is named by its task's pool in dot notation (`type: images.generations` for image.generate).
 */
const TAILS: Readonly<Record<TaskId, string | null>> = {
  'image.generate': 'highly detailed, sharp focus, balanced composition, natural lighting',
  'image.edit': 'keep the original composition, consistent lighting, clean seamless edit',
  'video.generate': 'smooth camera motion, cinematic lighting, coherent movement, high detail',
  'video.animate': 'subtle natural motion, stable subject, smooth camera, consistent lighting',
  'audio.speech': 'clear articulation, natural pacing, warm tone',
  'audio.music': 'rich arrangement, clean mix, steady groove',
  'image.ocr': null,
  'image.remove-background': null,
  'image.upscale': null,
  'video.audio-sync': null,
  'video.replace': null,
  'video.upscale': null,
  'video.describe': null,
  'video.remove-background': null,
  'audio.transcribe': null,
  'text.embed': null,
  'prompt.enhance': null,
};

/** The tail of booster `type` (`images.generations`); the image generator's for an unknown one. */
function tailOf(type: string): string {
  const task = TASK_IDS.find((id) => getTask(id).pool.replace('/', '.') === type);
  return (task === undefined ? null : TAILS[task]) ?? TAILS['image.generate'] ?? '';
}
const NEGATIVE_TAIL = 'blurry, low quality, distorted, artifacts';

function tidy(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function withTail(text: string, tail: string): string {
  const base = tidy(text).replace(/[.,;\s]+$/, '');
  return base.toLowerCase().includes(tail.toLowerCase()) ? base : `${base}, ${tail}`;
}

/** Text made easier to speak: single spaces, a capital first letter and a closing full stop. */
function forSpeech(text: string): string {
  const clean = tidy(text);
  const capital = clean.charAt(0).toUpperCase() + clean.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The enhanced prompt and negative prompt (null when none was given). */
export function enhancePrompt(request: ResolvedRequest): { prompt: string; negative_prompt: string | null } {
  const v = request.values;
  const prompt = typeof v['prompt'] === 'string' ? v['prompt'] : '';
  // The v1 speech booster (lang_code is optional there, so the route decides).
  if (request.endpoint.v1?.sync === 'prompt') return { prompt: forSpeech(prompt), negative_prompt: null };
  const type = typeof v['type'] === 'string' ? v['type'] : '';
  const negative = typeof v['negative_prompt'] === 'string' ? withTail(v['negative_prompt'], NEGATIVE_TAIL) : null;
  return { prompt: withTail(prompt, tailOf(type)), negative_prompt: negative };
}
