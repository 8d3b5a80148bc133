/**
 * The inference type slug a job runs as (webhook `job_type`, docs/deapi-contract.md#webhooks): for tasks
 * with several, the one matching the source (URL or upload, audio or video).
 */
import { assertNever } from '../../common/index.js';
import { endpointInferenceTypes } from '../../service/index.js';
import { describeSource } from '../requests/request-source.js';
import type { ResolvedRequest } from '../types.js';

export function jobTypeOf(request: ResolvedRequest): string {
  const task = request.endpoint.task?.id;
  const types = endpointInferenceTypes(request.endpoint);
  if (types.length === 1) return types[0] ?? task ?? '';
  const served = (): string => {
    const inferenceTypes = request.model?.inference_types ?? [];
    return types.find((t) => inferenceTypes.includes(t)) ?? types[0] ?? task ?? '';
  };
  if (task === undefined) return served();
  switch (task) {
    case 'video.describe':
      return describeSource(task, request.values, request.files).kind === 'file' ? 'video_file2desc' : 'video2desc';
    case 'audio.transcribe': {
      const source = describeSource(task, request.values, request.files);
      if (source.kind === 'file') return source.file?.media.family === 'video' ? 'video_file2text' : 'audio_file2text';
      return source.platform === 'x-spaces' ? 'audio2text' : 'video2text';
    }
    // One of the types the model serves.
    case 'image.generate':
    case 'image.edit':
    case 'image.ocr':
    case 'image.remove-background':
    case 'image.upscale':
    case 'video.generate':
    case 'video.animate':
    case 'video.audio-sync':
    case 'video.replace':
    case 'video.upscale':
    case 'video.remove-background':
    case 'audio.speech':
    case 'audio.music':
    case 'text.embed':
    case 'prompt.enhance':
      return served();
    default:
      return assertNever(task, 'task');
  }
}
