/**
 * How long a job runs on the virtual clock: the configured base duration (per pool, else
 * `duration_ms`), scaled by input size when `scale_by_input` (clamped to ×0.2…×20), with a
 * seeded ± `jitter` spread. `queue_share` of it is spent `pending`.
 */
import { assertNever } from '../../common/index.js';
import { describeSource } from '../requests/request-source.js';
import type { JobsConfig, ResolvedRequest } from '../types.js';

const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** Input size relative to a "typical" job of the task (1 = the base duration). */
export function sizeFactor(request: ResolvedRequest): number {
  const v = request.values;
  const task = request.endpoint.task?.id;
  if (task === undefined) return 1;
  const image = request.files['image']?.[0] ?? request.files['images']?.[0];
  switch (task) {
    case 'audio.transcribe':
    case 'video.describe':
    case 'video.replace':
    case 'video.upscale':
    case 'video.remove-background':
      return describeSource(task, v, request.files).seconds / 60;
    case 'audio.speech':
      return (typeof v['text'] === 'string' ? [...v['text']].length : num(v['count_text'])) / 500;
    case 'audio.music':
      return num(v['duration'], 30) / 30;
    case 'video.generate':
    case 'video.animate':
    case 'video.audio-sync':
      return num(v['frames'], 100) / 100;
    case 'image.generate':
    case 'image.edit':
    case 'image.ocr':
    case 'image.remove-background':
    case 'image.upscale': {
      const w = num(v['width'], image?.media.width ?? 1024);
      const h = num(v['height'], image?.media.height ?? 1024);
      return (w * h) / 1_048_576;
    }
    case 'text.embed': {
      const input = v['input'];
      return (Array.isArray(input) ? input.length : 1) / 100;
    }
    case 'prompt.enhance':
      return 1;
    default:
      return assertNever(task, 'task');
  }
}

/** Virtual milliseconds the job takes, given a uniform draw in [0, 1) for the jitter. */
export function planDurationMs(request: ResolvedRequest, config: JobsConfig, jitterDraw: number): number {
  const pool = request.endpoint.task?.pool ?? '';
  const base = config.durations[pool] ?? config.duration_ms;
  const factor = config.scale_by_input ? Math.min(20, Math.max(0.2, sizeFactor(request))) : 1;
  const spread = 1 + config.jitter * (2 * jitterDraw - 1);
  return Math.max(1, Math.round(base * factor * Math.max(0, spread)));
}
