// Field builders shared by the task catalogue (tasks-*.ts). Request fields the spec leaves
// "not shown" come from the public docs (docs/deapi-contract.md#tasks-and-their-request-fields).
import { IMAGE_FILE } from './file-rules.js';
import type { FieldSpec, V1Endpoint } from './types.js';

export const V1 = '/api/v1/client';

export const model = (description = 'Model slug; its inference_types must serve this task.'): FieldSpec => ({
  name: 'model',
  type: 'string',
  required: true,
  description,
});
export const prompt: FieldSpec = { name: 'prompt', type: 'string', required: true, description: 'Text prompt.', accepts: ['text'] };
export const negativePrompt: FieldSpec = {
  name: 'negative_prompt',
  type: 'string',
  description: 'What to keep out of the result.',
  accepts: ['text'],
};
export const width = (required: boolean): FieldSpec => ({
  name: 'width',
  type: 'integer',
  required,
  min: 64,
  max: 5000,
  description: 'Output width in pixels.',
  modelDefault: 'width',
  limits: { min: 'min_width', max: 'max_width' },
});
export const height = (required: boolean): FieldSpec => ({
  name: 'height',
  type: 'integer',
  required,
  min: 64,
  max: 5000,
  description: 'Output height in pixels.',
  modelDefault: 'height',
  limits: { min: 'min_height', max: 'max_height' },
});
export const guidance = (required: boolean): FieldSpec => ({
  name: 'guidance',
  type: 'number',
  required,
  min: 0,
  max: 50,
  description: 'Guidance scale.',
  modelDefault: 'guidance',
  limits: { min: 'min_guidance', max: 'max_guidance' },
});
export const steps = (required: boolean): FieldSpec => ({
  name: 'steps',
  type: 'integer',
  required,
  min: 1,
  max: 100,
  description: 'Inference steps.',
  modelDefault: 'steps',
  limits: { min: 'min_steps', max: 'max_steps' },
});
export const seed = (required: boolean): FieldSpec => ({
  name: 'seed',
  type: 'integer',
  required,
  min: -1,
  max: 4_294_967_295,
  default: -1,
  description: 'Random seed; -1 picks one.',
});
export const frames: FieldSpec = {
  name: 'frames',
  type: 'integer',
  required: true,
  min: 1,
  max: 1000,
  description: 'Number of frames.',
  modelDefault: 'frames',
  limits: { min: 'min_frames', max: 'max_frames' },
};
export const fps: FieldSpec = {
  name: 'fps',
  type: 'integer',
  required: true,
  min: 1,
  max: 120,
  description: 'Frames per second.',
  modelDefault: 'fps',
  limits: { min: 'min_fps', max: 'max_fps' },
};
export const loras: FieldSpec = {
  name: 'loras',
  type: 'array',
  description: 'LoRA adapters as [{ name, weight }].',
};
export const quality: FieldSpec = {
  name: 'quality',
  type: 'string',
  enum: ['low', 'medium', 'high', 'auto'],
  description: 'Quality tier (partner models).',
};
export const enhancePrompt: FieldSpec = {
  name: 'enhance_prompt',
  type: 'boolean',
  description: 'Boost the prompt before generating.',
};
export const imageFile = (name = 'image', required = true, description = 'Input image.'): FieldSpec => ({
  name,
  type: 'file',
  required,
  file: IMAGE_FILE,
  description,
  accepts: ['image'],
});
export const returnResult: FieldSpec = {
  name: 'return_result_in_response',
  type: 'boolean',
  default: false,
  description: 'Also return the result inline in the job status `result`.',
};
export const includeMetadata: FieldSpec = {
  name: 'include_metadata',
  type: 'boolean',
  default: false,
  description: 'Add source metadata to the job status (URL sources; flat surcharge).',
};
export const platform: FieldSpec = {
  name: 'platform',
  type: 'string',
  enum: ['youtube', 'twitter', 'twitch', 'kick', 'tiktok'],
  requires: 'duration_seconds',
  description: 'Source platform of a duration-only quote.',
};
/** `width` / `height` of an image price twin: the size of the image, to quote without uploading it. */
export const quoteImageSide = (name: 'width' | 'height'): FieldSpec => ({
  name,
  type: 'integer',
  min: 1,
  max: 5000,
  description: `Image ${name} in pixels, to quote without uploading the image (with the other side).`,
});
/** `duration` of a video twin (upscale, replacement, background removal), as the public docs and SDK name it. */
export const quoteDuration: FieldSpec = {
  name: 'duration',
  type: 'number',
  min: 0,
  max: 36_000,
  description: 'Video length in seconds, to quote without the file.',
};
export const durationSeconds: FieldSpec = {
  name: 'duration_seconds',
  type: 'number',
  min: 0,
  max: 36_000,
  description: 'Length of the media in seconds, to quote without uploading it.',
};

/** v1 twins that share the v2 field list: a path and its `/price-calculation` twin. */
export const v1Same = (name: string): V1Endpoint => ({ path: `${V1}/${name}`, pricePath: `${V1}/${name}/price-calculation` });
