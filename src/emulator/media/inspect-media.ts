import { fileTypeFromFile } from 'file-type';
import { imageSizeFromFile } from 'image-size/fromFile';
import { parseFile } from 'music-metadata';
import { probeMp4 } from '../../common/index.js';
import type { MediaFamily } from '../../service/index.js';
import type { InspectedMedia } from '../types.js';

/** file-type's extension → the format name the service's rules and messages use. */
const FORMAT_NAMES: Readonly<Record<string, string>> = {
  mp3: 'mp3', mp2: 'mp3', mp1: 'mp3',
  oga: 'ogg', ogv: 'ogg', ogm: 'ogg', opus: 'ogg', spx: 'ogg', ogx: 'ogg',
  mpg: 'mpeg', m4v: 'mp4', f4v: 'mp4',
  qt: 'mov',
};

/** Containers whose content decides whether they hold audio or video. */
const MIXED_CONTAINERS = new Set(['webm', 'mkv', 'ogg', 'mp4', 'mov']);
const ISO_BMFF = new Set(['mp4', 'mov', 'm4a']);
const TRACK_VIDEO = 1;
const TRACK_AUDIO = 2;

function formatName(ext: string, mime: string): string {
  if (ext === 'asf') return mime.startsWith('audio/') ? 'wma' : 'wmv';
  return FORMAT_NAMES[ext] ?? ext;
}

function familyOf(mime: string): MediaFamily | null {
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('audio/') || mime === 'application/ogg') return 'audio';
  if (mime.startsWith('video/') || mime === 'application/vnd.ms-asf') return 'video';
  return null;
}

interface StreamFacts {
  durationSeconds?: number;
  hasVideo?: boolean;
  hasAudio?: boolean;
}

async function inspectStreams(path: string, format: string): Promise<StreamFacts> {
  // music-metadata reads an MP4's duration only from audio tracks and always reports
  // hasAudio for it, so ISO BMFF files go to mp4box first.
  if (ISO_BMFF.has(format)) {
    const movie = await probeMp4(path);
    if (movie) return { durationSeconds: movie.durationSeconds, hasVideo: movie.hasVideo, hasAudio: movie.hasAudio };
  }
  const facts: StreamFacts = {};
  try {
    const { format: info } = await parseFile(path, { skipCovers: true });
    if (info.duration !== undefined && Number.isFinite(info.duration)) facts.durationSeconds = info.duration;
    const types = new Set(info.trackInfo.map((t) => t.type));
    facts.hasVideo = info.hasVideo === true || types.has(TRACK_VIDEO);
    facts.hasAudio = ISO_BMFF.has(format) ? types.has(TRACK_AUDIO) : info.hasAudio === true || types.has(TRACK_AUDIO);
  } catch {
    // Unparseable media: the format check already passed, so keep what file-type said.
  }
  return facts;
}

/** What an uploaded file is, judged by its content only (never by its name or declared type). */
export async function inspectMedia(path: string): Promise<InspectedMedia> {
  const type = await fileTypeFromFile(path).catch(() => undefined);
  if (!type) return { family: null, ext: null, mime: null };
  const ext = formatName(type.ext, type.mime);
  let family = familyOf(type.mime);
  if (family === 'image') {
    const size = await imageSizeFromFile(path).catch(() => undefined);
    return size ? { family, ext, mime: type.mime, width: size.width, height: size.height } : { family, ext, mime: type.mime };
  }
  if (family === null) return { family, ext, mime: type.mime };
  const facts = await inspectStreams(path, ext);
  if (MIXED_CONTAINERS.has(ext) && facts.hasVideo !== undefined) family = facts.hasVideo ? 'video' : 'audio';
  const media: { -readonly [K in keyof InspectedMedia]: InspectedMedia[K] } = { family, ext, mime: type.mime };
  if (facts.durationSeconds !== undefined) media.durationSeconds = facts.durationSeconds;
  if (facts.hasVideo !== undefined) media.hasVideo = facts.hasVideo;
  if (facts.hasAudio !== undefined) media.hasAudio = facts.hasAudio;
  return media;
}

