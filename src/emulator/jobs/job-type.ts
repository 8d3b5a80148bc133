/**
 * The inference type slug a job runs as (webhook `job_type`, docs/deapi-contract.md#webhooks): for tasks
 * with several, the one matching the source (URL or upload, audio or video).
 */
import { endpointInferenceTypes } from '../../service/index.js';
import { describeSource } from '../requests/request-source.js';
import type { ResolvedRequest } from '../types.js';

export function jobTypeOf(request: ResolvedRequest): string {
  const task = request.endpoint.task?.id ?? '';
  const types = endpointInferenceTypes(request.endpoint);
  if (types.length === 1) return types[0] ?? task;
  const source = describeSource(task, request.values, request.files);
  if (task === 'video.describe') return source.kind === 'file' ? 'video_file2desc' : 'video2desc';
  if (task === 'audio.transcribe') {
    if (source.kind === 'file') return source.file?.media.family === 'video' ? 'video_file2text' : 'audio_file2text';
    return source.platform === 'x-spaces' ? 'audio2text' : 'video2text';
  }
  const served = request.model?.inference_types ?? [];
  return types.find((t) => served.includes(t)) ?? types[0] ?? task;
}
