import type { FieldSpec, FileRule } from './types.js';

const MB = 1024 * 1024;

/** Image uploads (OCR, upscale, background removal, edits): JPG, JPEG, PNG, GIF, BMP, WebP; 10 MB. */
export const IMAGE_FILE: FileRule = {
  formats: ['jpg', 'jpeg', 'png', 'gif', 'bmp', 'webp'],
  maxBytes: 10 * MB,
  families: ['image'],
};

/** Audio for v2 transcription (docs/deapi-contract.md#size-limits): aac, mpeg, ogg, wav, webm, flac; 20 MB. */
export const TRANSCRIBE_AUDIO_FILE: FileRule = {
  formats: ['aac', 'mp3', 'mpeg', 'ogg', 'wav', 'webm', 'flac', 'm4a'],
  maxBytes: 20 * MB,
  families: ['audio'],
};

/** Video for transcription: mp4, mpeg, quicktime, avi, wmv, ogg; 50 MB. */
export const VIDEO_FILE: FileRule = {
  formats: ['mp4', 'mpeg', 'mov', 'quicktime', 'avi', 'wmv', 'ogg', 'webm', 'mkv'],
  maxBytes: 50 * MB,
  families: ['video'],
};

/** v2 transcription `source_file`: audio (20 MB) or video (50 MB); the tighter cap applies to audio. */
export const TRANSCRIBE_SOURCE_FILE: FileRule = {
  formats: [...new Set([...TRANSCRIBE_AUDIO_FILE.formats, ...VIDEO_FILE.formats])],
  maxBytes: 50 * MB,
  families: ['audio', 'video'],
};

/** v1 `audiofile2txt`: AAC, MP3, OGG, WebM; 20 MB (spec, Detailed endpoints). */
export const V1_AUDIO_FILE: FileRule = {
  formats: ['aac', 'mp3', 'ogg', 'webm'],
  maxBytes: 20 * MB,
  families: ['audio'],
};

/** v1 `videofile2txt`: MP4, MPEG, QuickTime MOV, AVI, WMV, OGG; 50 MB; must contain an audio stream. */
export const V1_VIDEO_FILE: FileRule = {
  formats: ['mp4', 'mpeg', 'mov', 'quicktime', 'avi', 'wmv', 'ogg'],
  maxBytes: 50 * MB,
  families: ['video'],
  needsStream: 'audio',
};

/** Video description upload: mp4, mpeg, quicktime, avi, wmv, ogg, webm, mkv; must contain a video stream. */
export const DESCRIBE_VIDEO_FILE: FileRule = {
  formats: ['mp4', 'mpeg', 'mov', 'quicktime', 'avi', 'wmv', 'ogg', 'webm', 'mkv'],
  maxBytes: 50 * MB,
  families: ['video'],
  needsStream: 'video',
};

/** Audio for video audio-sync: MP3/OGG, 20 MB. */
export const SYNC_AUDIO_FILE: FileRule = {
  formats: ['mp3', 'ogg'],
  maxBytes: 20 * MB,
  families: ['audio'],
};

/** Voice-clone reference: mp3/ogg/m4a (docs), wav and flac (the n8n node's list); 10 MB. Music reference: 15 MB. */
export const REF_AUDIO_FILE: FileRule = {
  formats: ['mp3', 'ogg', 'm4a', 'wav', 'flac'],
  maxBytes: 10 * MB,
  families: ['audio'],
};
export const MUSIC_REF_AUDIO_FILE: FileRule = {
  formats: ['mp3', 'ogg', 'm4a', 'wav', 'flac'],
  maxBytes: 15 * MB,
  families: ['audio'],
};

/** Whole request bodies over 75 MB are refused with 413. */
export const MAX_BODY_BYTES = 75 * MB;

/** Optional webhook fields every submission takes (docs/deapi-contract.md#tasks-and-their-request-fields). */
export const WEBHOOK_FIELDS: readonly FieldSpec[] = [
  {
    name: 'webhook_url',
    type: 'string',
    url: true,
    https: true,
    maxLength: 2048,
    description: 'HTTPS URL that receives job.processing / job.completed / job.failed deliveries.',
  },
  {
    name: 'webhook_secret',
    type: 'string',
    minLength: 32,
    maxLength: 255,
    requires: 'webhook_url',
    description: 'Per-request HMAC secret that signs the deliveries (32-255 characters).',
  },
];
