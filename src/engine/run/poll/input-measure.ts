/**
 * How large a job's input is, relative to a typical one (1): seconds of media over 60, characters
 * of text over 500, pixels over a megapixel, frames over 100, music seconds over 30. A job's
 * duration grows with its input, so the poll estimator learns a key's duration per unit of this
 * size (docs/running.md, Polling): a two-minute clip is polled about four times later than a thirty-second
 * one. Undefined when nothing measures the input (a stream from an earlier step whose length is
 * unknown, a file that cannot be read): such a job is estimated per job, as before.
 */
import { isFileRef, type RequestFields } from '../../../client/index.js';
import type { TaskId } from '../../../service/index.js';
import { type DurationReader, sizeVariableOf } from '../../quote/index.js';

/** Reference sizes (a job of about the prior's duration). */
const MEDIA_SECONDS = 60;
const CHARACTERS = 500;
const PIXELS = 1_048_576;
const FRAMES = 100;
const MUSIC_SECONDS = 30;

const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);

function characters(value: unknown): number | undefined {
  if (typeof value === 'string') return value.length > 0 ? [...value].length : undefined;
  if (Array.isArray(value)) {
    let total = 0;
    for (const part of value) if (typeof part === 'string') total += [...part].length;
    return total > 0 ? total : undefined;
  }
  return undefined;
}

/** The input's size relative to a typical job of its task, or undefined when it cannot be told. */
export async function measureInput(task: TaskId, fields: RequestFields, durations: DurationReader): Promise<number | undefined> {
  const variable = sizeVariableOf(task);
  if (variable?.measure === 'media-seconds') {
    const given = positive(fields[variable.name]);
    if (given !== undefined) return given / MEDIA_SECONDS;
    const file = variable.replaces === null ? undefined : fields[variable.replaces];
    if (!isFileRef(file)) return undefined;
    const seconds = await durations.read(file.path);
    return seconds === undefined ? undefined : seconds / MEDIA_SECONDS;
  }
  if (variable?.measure === 'characters') {
    const count = positive(fields[variable.name]) ?? characters(variable.replaces === null ? undefined : fields[variable.replaces]);
    return count === undefined ? undefined : count / CHARACTERS;
  }
  if (task === 'audio.music') {
    const seconds = positive(fields['duration']);
    return seconds === undefined ? undefined : seconds / MUSIC_SECONDS;
  }
  const frames = positive(fields['frames']);
  if (frames !== undefined) return frames / FRAMES;
  const width = positive(fields['width']);
  const height = positive(fields['height']);
  if (width !== undefined && height !== undefined) return (width * height) / PIXELS;
  return undefined;
}

/**
 * `reader` asked once per path for the run's lifetime: the longest-first order reads every
 * clip before the first submission, and the jobs then find their lengths at once (in the same
 * number of turns, so they reach the rate governor in the order they were started).
 */
export function oncePerPath(reader: DurationReader): DurationReader {
  const memo = new Map<string, Promise<number | undefined>>();
  return {
    read(path) {
      let pending = memo.get(path);
      if (pending === undefined) {
        pending = reader.read(path);
        memo.set(path, pending);
      }
      return pending;
    },
  };
}
