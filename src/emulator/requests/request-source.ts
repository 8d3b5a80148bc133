/**
 * The source media of a request that processes media (transcription, description, video
 * replace / upscale / background removal): where it comes from and how long it is. Prices,
 * job durations, result sizes and the `max_video_duration_seconds` rule all read it.
 */
import { type FieldSpec, getTask, type TaskId } from '../../service/index.js';
import type { ValidFile } from '../types.js';
import { detectPlatform, type SourcePlatform, urlMediaSeconds } from '../media/url-media.js';

export interface RequestSource {
  readonly kind: 'url' | 'file' | 'duration' | 'none';
  /** The field the source came in. */
  readonly field: string | null;
  /** Length in seconds (0 when unknown and nothing to estimate from). */
  readonly seconds: number;
  readonly platform: SourcePlatform | null;
  readonly url: string | null;
  readonly file: ValidFile | null;
}

const URL_FIELDS = ['source_url', 'video_url', 'audio_url'];
const FILE_FIELDS = ['source_file', 'video_file', 'audio', 'video'];
const DURATION_FIELDS = ['duration_seconds', 'duration'] as const;
type DurationField = (typeof DURATION_FIELDS)[number];
/**
 * Where a task's source length is given when no URL or file is: the field its price twin takes
 * in place of the source media, read from the catalogue (video twins take `duration` where the
 * others take `duration_seconds`). Null: the task has no source media.
 */
function durationFieldOf(task: TaskId): DurationField | null {
  const field = getTask(task).priceFields.find((f): f is FieldSpec & { name: DurationField } => (DURATION_FIELDS as readonly string[]).includes(f.name));
  return field?.name ?? null;
}

/**
 * Seconds of an uploaded file. When the container gave no duration, estimate from the size
 * (audio at 128 kbit/s, video at 1 Mbit/s) so that a price is still deterministic.
 */
export function fileSeconds(file: ValidFile): number {
  if (file.media.durationSeconds !== undefined) return file.media.durationSeconds;
  return file.size / (file.media.family === 'video' ? 125_000 : 16_000);
}

const NONE: RequestSource = { kind: 'none', field: null, seconds: 0, platform: null, url: null, file: null };

/** The source of a request of task `taskId`, from its resolved values and files. */
export function describeSource(
  taskId: TaskId | undefined,
  values: Readonly<Record<string, unknown>>,
  files: Readonly<Record<string, readonly ValidFile[]>>,
): RequestSource {
  const durationField = taskId === undefined ? null : durationFieldOf(taskId);
  if (durationField === null) return NONE;
  for (const field of URL_FIELDS) {
    const url = values[field];
    if (typeof url === 'string') {
      return { kind: 'url', field, seconds: urlMediaSeconds(url), platform: detectPlatform(url) ?? null, url, file: null };
    }
  }
  for (const field of FILE_FIELDS) {
    const file = files[field]?.[0];
    if (file) return { kind: 'file', field, seconds: fileSeconds(file), platform: null, url: null, file };
  }
  const seconds = values[durationField];
  if (typeof seconds === 'number') {
    const platform = typeof values['platform'] === 'string' ? (values['platform'] as SourcePlatform) : null;
    return { kind: 'duration', field: durationField, seconds, platform, url: null, file: null };
  }
  return NONE;
}
