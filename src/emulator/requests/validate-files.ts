/**
 * Checks of uploaded files: the format is sniffed from the content (file-type), never taken
 * from the name or the declared type; then the size cap and, where a task needs one, the
 * stream the container must carry.
 */
import type { ModelInfo } from '../../service/index.js';
import { TRANSCRIBE_AUDIO_FILE } from '../../service/index.js';
import type { FieldSpec, FileRule } from '../../service/index.js';
import { MESSAGES } from './error-messages.js';
import { inspectMedia } from '../media/inspect-media.js';
import { limitNumber } from './model-limits.js';
import type { UploadedFile, ValidFile } from '../types.js';

/** The outcome for one file field: its valid files, or its messages. */
export interface FileFieldResult {
  readonly files: ValidFile[];
  readonly messages: string[];
}

/** Size cap for a file: a field taking audio or video caps audio at the audio limit (20 MB). */
function capFor(rule: FileRule, family: string | null): number {
  const mixed = rule.families.includes('audio') && rule.families.includes('video');
  return mixed && family === 'audio' ? Math.min(rule.maxBytes, TRANSCRIBE_AUDIO_FILE.maxBytes) : rule.maxBytes;
}

async function checkFile(field: FieldSpec, rule: FileRule, upload: UploadedFile): Promise<{ file?: ValidFile; messages: string[] }> {
  const media = await inspectMedia(upload.path);
  const messages: string[] = [];
  const formatOk = media.ext !== null && rule.formats.includes(media.ext);
  if (!formatOk) messages.push(MESSAGES.fileType(field.name, rule.formats));
  const cap = capFor(rule, media.family);
  if (upload.size > cap) messages.push(MESSAGES.maxKilobytes(field.name, Math.floor(cap / 1024)));
  if (formatOk && rule.needsStream === 'video' && media.hasVideo !== true) messages.push(MESSAGES.stream(field.name, 'video'));
  if (formatOk && rule.needsStream === 'audio' && media.hasAudio !== true) messages.push(MESSAGES.stream(field.name, 'audio'));
  return messages.length > 0 ? { messages } : { file: { ...upload, media }, messages };
}

/** Checks the uploads of one `file` or `files` field. */
export async function checkFileField(
  field: FieldSpec,
  uploads: readonly UploadedFile[],
  model: ModelInfo | null,
): Promise<FileFieldResult> {
  const rule = field.file;
  if (!rule) return { files: [], messages: [MESSAGES.file(field.name)] };
  // A single-file field given several parts keeps the first, as PHP does with repeated names.
  const chosen = field.type === 'file' ? uploads.slice(0, 1) : uploads;
  const results = await Promise.all(chosen.map((upload) => checkFile(field, rule, upload)));
  const messages = [...new Set(results.flatMap((r) => r.messages))];
  const maxCount = limitNumber(model, field.limits?.maxCount) ?? field.maxItems;
  if (field.type === 'files' && maxCount !== undefined && chosen.length > maxCount) {
    messages.push(MESSAGES.maxItems(field.name, maxCount));
  }
  return { files: results.flatMap((r) => (r.file ? [r.file] : [])), messages };
}
