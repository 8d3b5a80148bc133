/**
 * Rules that span fields or depend on the chosen model: exactly-one-of groups, fields that
 * need another, source platforms, per-source inference types, TikTok, diarization, fixed
 * video-upscale scales, the longest accepted source and the speech modes.
 */
import { type Endpoint, endpointRequiredWithout, endpointSourceOptional } from '../../service/index.js';
import type { ModelInfo } from '../../service/index.js';
import type { FieldSpec, TaskId } from '../../service/index.js';
import { addError, MESSAGES } from './error-messages.js';
import { featureFlag, limitNumber } from './model-limits.js';
import { describeSource } from './request-source.js';
import type { FieldErrors, ValidFile } from '../types.js';
import { detectPlatform, parseHttpUrl } from '../media/url-media.js';
import { PLATFORMS_BY_FIELD } from '../../service/index.js';

/** What the rules see of a request: raw presence, coerced values and checked files. */
export interface RuleInput {
  readonly endpoint: Endpoint;
  readonly fields: readonly FieldSpec[];
  readonly groups: readonly (readonly string[])[];
  readonly present: (name: string) => boolean;
  readonly values: Readonly<Record<string, unknown>>;
  readonly files: Readonly<Record<string, readonly ValidFile[]>>;
  /** The model, when it exists and serves the task. */
  readonly model: ModelInfo | null;
}

/** Inference types a model needs per source kind, for tasks that split them (null: any type of the task). */
const SOURCE_TYPES: Readonly<Record<TaskId, { url: readonly string[]; file: readonly string[] } | null>> = {
  'audio.transcribe': { url: ['audio2text', 'video2text'], file: ['audio_file2text', 'video_file2text'] },
  'video.describe': { url: ['video2desc'], file: ['video_file2desc'] },
  'image.generate': null,
  'image.edit': null,
  'image.ocr': null,
  'image.remove-background': null,
  'image.upscale': null,
  'video.generate': null,
  'video.animate': null,
  'video.audio-sync': null,
  'video.replace': null,
  'video.upscale': null,
  'video.remove-background': null,
  'audio.speech': null,
  'audio.music': null,
  'text.embed': null,
  'prompt.enhance': null,
};

const TIKTOK_MODEL = 'WhisperLargeV3Ct2';

function checkExactlyOneOf(input: RuleInput, errors: FieldErrors): void {
  // Some quotes may leave the source out (video upscale answers price 0 then, per the public docs).
  const neitherAllowed = endpointSourceOptional(input.endpoint);
  for (const group of input.groups) {
    const given = group.filter(input.present);
    if (given.length === 0 && !neitherAllowed) {
      for (const member of group) addError(errors, member, MESSAGES.requiredWithout(member, group.filter((m) => m !== member)));
    }
    if (given.length > 1) {
      for (const member of given) addError(errors, member, MESSAGES.prohibits(member, given.filter((m) => m !== member)));
    }
  }
}

/** Laravel's `required_without`: a twin's image unless both `width` and `height` are given. */
function checkRequiredWithout(input: RuleInput, errors: FieldErrors): void {
  for (const [field, others] of Object.entries(endpointRequiredWithout(input.endpoint))) {
    if (!input.present(field) && others.some((o) => !input.present(o))) addError(errors, field, MESSAGES.requiredWithout(field, others));
  }
}

function checkRequires(input: RuleInput, errors: FieldErrors): void {
  for (const field of input.fields) {
    if (!field.requires || !input.present(field.name)) continue;
    const target = input.fields.find((f) => f.name === field.requires);
    if (!input.present(field.requires)) addError(errors, field.requires, MESSAGES.requiredWith(field.requires, field.name));
    else if (target?.type === 'boolean' && input.values[field.requires] === false) {
      addError(errors, field.name, MESSAGES.prohibitedUnless(field.name, field.requires, 'true'));
    }
  }
}

function checkSourceUrls(input: RuleInput, errors: FieldErrors): void {
  for (const [field, allowed] of Object.entries(PLATFORMS_BY_FIELD)) {
    const url = input.values[field];
    if (typeof url !== 'string' || !parseHttpUrl(url)) continue;
    const platform = detectPlatform(url);
    if (!platform || !allowed.includes(platform)) addError(errors, field, MESSAGES.platform(field));
  }
}

function checkModelRules(input: RuleInput, errors: FieldErrors): void {
  const { model, values } = input;
  const task = input.endpoint.task;
  if (!model || !task) return;
  const source = describeSource(task.id, values, input.files);
  const split = SOURCE_TYPES[task.id];
  if (split && !input.endpoint.v1?.inferenceTypes && (source.kind === 'url' || source.kind === 'file')) {
    const needed = source.kind === 'url' ? split.url : split.file;
    if (!needed.some((t) => model.inference_types.includes(t))) addError(errors, 'model', MESSAGES.modelTask(task.title));
  }
  if (task.id === 'audio.transcribe' && source.platform === 'tiktok' && model.slug !== TIKTOK_MODEL) {
    addError(errors, source.kind === 'duration' ? 'platform' : (source.field ?? 'platform'), MESSAGES.tiktok());
  }
  if (values['diarize'] === true && featureFlag(model, 'supports_diarization') !== true) {
    addError(errors, 'diarize', MESSAGES.diarization());
  }
  if (input.present('scale') && featureFlag(model, 'supports_scale') === false) addError(errors, 'scale', MESSAGES.prohibited('scale'));
  const longest = limitNumber(model, 'max_video_duration_seconds');
  if (longest !== undefined && source.field && source.seconds > longest) {
    addError(errors, source.field, MESSAGES.longerThan(source.field, longest));
  }
}

function checkSpeechMode(input: RuleInput, errors: FieldErrors): void {
  if (input.endpoint.task?.id !== 'audio.speech' || input.endpoint.kind !== 'submit') return;
  const mode = input.values['mode'];
  if (mode === 'voice_clone' && !input.present('ref_audio')) addError(errors, 'ref_audio', MESSAGES.requiredIf('ref_audio', 'mode', 'voice_clone'));
  if (mode === 'voice_design' && !input.present('instruct')) addError(errors, 'instruct', MESSAGES.requiredIf('instruct', 'mode', 'voice_design'));
}

/** Adds the messages of every cross-field and model rule to `errors`. */
export function checkTaskRules(input: RuleInput, errors: FieldErrors): void {
  checkExactlyOneOf(input, errors);
  checkRequiredWithout(input, errors);
  checkRequires(input, errors);
  checkSourceUrls(input, errors);
  checkModelRules(input, errors);
  checkSpeechMode(input, errors);
}
