/**
 * Media lengths read locally, so a transcription or a video description can be quoted with
 * `duration_seconds` instead of uploading the file. ISO BMFF files (MP4, MOV, M4A) are read
 * with mp4box from their `moov` (a video-only MP4 has no audio duration for music-metadata to
 * report); everything else with music-metadata, which reads only what it needs.
 */
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { probeMp4 } from '../../common/index.js';

/**
 * Small files are read whole (one open, one read): music-metadata's file tokenizer issues many
 * tiny reads while it hunts for frame headers, which costs more than the file (same result,
 * measured 2× faster). Larger ones are left to the tokenizer, which reads only what it needs.
 */
const READ_WHOLE_BYTES = 4 * 1024 * 1024;

const isIsoBmff = (head: Buffer): boolean => head.length >= 8 && head.toString('latin1', 4, 8) === 'ftyp';

async function readStart(path: string): Promise<{ bytes: Buffer; whole: boolean }> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size <= READ_WHOLE_BYTES) return { bytes: await file.readFile(), whole: true };
    const head = Buffer.alloc(12);
    const { bytesRead } = await file.read(head, 0, 12, 0);
    return { bytes: head.subarray(0, bytesRead), whole: false };
  } finally {
    await file.close();
  }
}

/** The length of a media file in seconds, or undefined when it cannot be read. */
export async function readMediaDuration(path: string): Promise<number | undefined> {
  try {
    const start = await readStart(path);
    if (isIsoBmff(start.bytes)) {
      const probe = await probeMp4(path);
      if (probe && Number.isFinite(probe.durationSeconds) && probe.durationSeconds > 0) return probe.durationSeconds;
    }
    const options = { skipCovers: true };
    // Loaded for the first audio file: most runs never read one's duration.
    const { parseBuffer, parseFile } = await import('music-metadata');
    const { format } = start.whole ? await parseBuffer(start.bytes, undefined, options) : await parseFile(path, options);
    return format.duration !== undefined && Number.isFinite(format.duration) && format.duration > 0 ? format.duration : undefined;
  } catch {
    return undefined;
  }
}

export interface DurationReader {
  /** {@link readMediaDuration}, read once per (path, size, mtime) for the reader's lifetime. */
  read(path: string): Promise<number | undefined>;
}

/** A memoising duration reader for one quote. */
export function createDurationReader(): DurationReader {
  const memo = new Map<string, Promise<number | undefined>>();
  return {
    async read(path) {
      const absolute = resolve(path);
      const info = await stat(absolute).catch(() => undefined);
      if (!info) return undefined;
      const key = `${absolute}\0${info.size}\0${info.mtimeMs}`;
      let pending = memo.get(key);
      if (pending === undefined) {
        pending = readMediaDuration(absolute);
        memo.set(key, pending);
      }
      return pending;
    },
  };
}
