import type { Movie } from 'mp4box';

/** What an ISO BMFF container (MP4, MOV) holds, as read by mp4box from its `moov`. */
export interface Mp4Probe {
  /** Movie duration in seconds. */
  readonly durationSeconds: number;
  readonly hasVideo: boolean;
  readonly hasAudio: boolean;
  readonly width?: number;
  readonly height?: number;
}

const CHUNK = 64 * 1024;
const ISO_BMFF_TYPES = new Set(['video/mp4', 'video/quicktime', 'audio/mp4', 'video/x-m4v', 'audio/x-m4a', 'video/3gpp', 'video/3gpp2']);

/**
 * Reads an MP4/MOV's movie header with mp4box, pulling only the bytes the parser asks for
 * (it skips `mdat` by telling us the next offset it needs), so a 50 MB upload costs a few
 * reads. Resolves undefined when the file is not an ISO BMFF movie.
 */
export async function probeMp4(path: string): Promise<Mp4Probe | undefined> {
  // Loaded on first use: most commands never probe a movie, and both cost start-up time.
  const [{ fileTypeFromFile }, { createFile, MP4BoxBuffer }] = await Promise.all([import('file-type'), import('mp4box')]);
  // mp4box logs parse errors to the console at any log level: only hand it ISO BMFF files.
  const type = await fileTypeFromFile(path).catch(() => undefined);
  if (!type || !ISO_BMFF_TYPES.has(type.mime)) return undefined;
  const file = await process.getBuiltinModule('node:fs/promises').open(path, 'r');
  try {
    const { size } = await file.stat();
    const parser = createFile();
    let movie: Movie | undefined;
    let failed = false;
    parser.onReady = (info) => {
      movie = info;
    };
    parser.onError = () => {
      failed = true;
    };
    let offset = 0;
    let reads = 0;
    while (!movie && !failed && offset < size && reads < 10_000) {
      reads += 1;
      const buffer = new MP4BoxBuffer(Math.min(CHUNK, size - offset));
      const { bytesRead } = await file.read(new Uint8Array(buffer), 0, buffer.byteLength, offset);
      if (bytesRead === 0) break;
      buffer.fileStart = offset;
      const next = parser.appendBuffer(buffer, offset + bytesRead >= size);
      offset = typeof next === 'number' && next > offset ? next : offset + bytesRead;
    }
    parser.flush();
    if (!movie || !movie.hasMoov || !(movie.timescale > 0)) return undefined;
    const video = movie.videoTracks[0];
    return {
      durationSeconds: movie.duration / movie.timescale,
      hasVideo: movie.videoTracks.length > 0,
      hasAudio: movie.audioTracks.length > 0,
      ...(video?.video ? { width: video.video.width, height: video.video.height } : {}),
    };
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}
