/**
 * Types of the service contract (`docs/deapi-contract.md`), written down as data in this
 * folder. The client, the emulator and the workflow schema all read the same entries.
 */

/** The 17 task ids of deflow's workflow language: one per v2 submission endpoint. */
export type TaskId =
  | 'image.generate'
  | 'image.edit'
  | 'image.ocr'
  | 'image.remove-background'
  | 'image.upscale'
  | 'video.generate'
  | 'video.animate'
  | 'video.audio-sync'
  | 'video.replace'
  | 'video.upscale'
  | 'video.describe'
  | 'video.remove-background'
  | 'audio.speech'
  | 'audio.music'
  | 'audio.transcribe'
  | 'text.embed'
  | 'prompt.enhance';

/** What a finished job yields, which decides how it flows into the next step. */
export type ResultKind = 'image' | 'audio' | 'video' | 'text' | 'json' | 'vectors';

/** Media families a file field accepts (checked by content, not by name). */
export type MediaFamily = 'image' | 'audio' | 'video';

/** How a request body is encoded. */
export type BodyKind = 'json' | 'multipart';

/**
 * A rate-limit pool: the bucket a request spends. Submission endpoints each have their own
 * pool, named by their v2 path under `/api/v2/` (`images/generations`), shared by the v1
 * twin; every price endpoint spends `quote`; prompt enhancement spends `enhancement`; job
 * status polls `jobs_status`; account reads `account`; key creation `key_creation`.
 * `null` means the endpoint is not throttled (balance, models).
 */
export type PoolId = string;

/** The value type of a request field. */
export type FieldType =
  | 'string'
  | 'integer'
  | 'number'
  | 'boolean'
  /** one uploaded file */
  | 'file'
  /** several uploaded files, sent as repeated `name[]` parts */
  | 'files'
  /** a string or an array of strings (embedding input) */
  | 'text-or-texts'
  /** an array of objects (loras) */
  | 'array';

/** Rules for an uploaded file. */
export interface FileRule {
  /** Accepted formats, by the extension names the service's messages use (`jpg`, `mp3`, …). */
  readonly formats: readonly string[];
  /** Largest accepted size, in bytes. */
  readonly maxBytes: number;
  /** Media families the content must belong to. */
  readonly families: readonly MediaFamily[];
  /** The content must carry this kind of stream (video description needs video, v1 video transcription audio). */
  readonly needsStream?: 'video' | 'audio';
}

/**
 * Keys of a model's `info.limits` that bound a field. `min`/`max` bound a number (or a text's
 * length when the field is a string), `oneOf` lists allowed values, `maxCount` bounds a list.
 */
export interface ModelLimitKeys {
  readonly min?: string;
  readonly max?: string;
  readonly oneOf?: string;
  readonly maxCount?: string;
}

/** One request field. */
export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  /** Required by the service. A required field with a `default` (or a model default) may be left out by a workflow. */
  readonly required?: boolean;
  readonly description: string;
  readonly enum?: readonly (string | number)[];
  readonly min?: number;
  readonly max?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly maxItems?: number;
  /** Must be an `https:` URL (webhook_url). */
  readonly https?: boolean;
  /** A URL (source_url, video_url). */
  readonly url?: boolean;
  readonly file?: FileRule;
  /** Only valid when this other field is present (webhook_secret needs webhook_url). */
  readonly requires?: string;
  /** A value the service assumes when the field is left out. */
  readonly default?: string | number | boolean;
  /** The `info.defaults` key of the chosen model that fills this field when it is left out. */
  readonly modelDefault?: string;
  /** The `info.limits` keys that bound it for the chosen model. */
  readonly limits?: ModelLimitKeys;
  /**
   * The model list item's own enumeration the value must be in, when the model publishes it:
   * `languages` (the slugs of its `languages`), `voices` (the slugs of their voices; TTS).
   */
  readonly modelList?: 'languages' | 'voices';
  /** Result kinds of an upstream step this field accepts (file fields: media; text fields: text/json). */
  readonly accepts?: readonly ResultKind[];
}

/** A v1 path of a task, with any field renames it needs. */
export interface V1Endpoint {
  /** Path under the base URL, e.g. `/api/v1/client/txt2img`. */
  readonly path: string;
  /** Its price twin (`…/price-calculation`, or `videos/replace/price`). `null` when it has none. */
  readonly pricePath: string | null;
  /** Field list when it differs from the v2 one (v1 transcription endpoints, prompt/speech). */
  readonly fields?: readonly FieldSpec[];
  /** Exactly-one-of groups when they differ from v2. */
  readonly exactlyOneOf?: readonly (readonly string[])[];
  readonly body?: BodyKind;
  /** Synchronous answer shape when it differs (v1 prompt/speech answers `{ prompt }`). */
  readonly sync?: 'prompt';
  /** This endpoint answers 422 `errors` as an array of `{ field, messages }`. */
  readonly errorsAsArray?: boolean;
  /** Inference types this path serves, when narrower than the task's. */
  readonly inferenceTypes?: readonly string[];
  /** Fields its price twin takes beside `fields` (`duration_seconds` in place of the file). */
  readonly priceFields?: readonly FieldSpec[];
  /** Exactly-one-of groups of its price twin, when they differ from `exactlyOneOf`. */
  readonly priceExactlyOneOf?: readonly (readonly string[])[];
}

/** One task: a v2 submission endpoint, its price twin, its v1 twins and its rules. */
export interface TaskSpec {
  readonly id: TaskId;
  readonly title: string;
  /** v2 submission path, e.g. `/api/v2/images/generations`. */
  readonly path: string;
  /** v2 price twin path (`path + '/price'`). */
  readonly pricePath: string;
  readonly body: BodyKind;
  readonly fields: readonly FieldSpec[];
  /** Groups of fields of which exactly one must be present. */
  readonly exactlyOneOf: readonly (readonly string[])[];
  /** Fields the price twin takes in place of (or beside) the submission's. */
  readonly priceFields: readonly FieldSpec[];
  /** Exactly-one-of groups of the price twin, when they differ (`duration_seconds` as a third source). */
  readonly priceExactlyOneOf?: readonly (readonly string[])[];
  /** Fields the price twin ignores (files it does not need, webhooks). */
  readonly priceOmits?: readonly string[];
  /** Fields the submission requires and its price twin does not: the price does not depend on them. */
  readonly priceOptional?: readonly string[];
  /**
   * Price twin: a field required unless every listed field is given (an image file, unless
   * `width` and `height` say its size). The file is then optional on the twin.
   */
  readonly priceRequiredWithout?: Readonly<Record<string, readonly string[]>>;
  /**
   * Price twin: its exactly-one-of groups become at-most-one; with no source at all the price
   * falls back (0 for video upscale, as the public docs say; see the emulator's prices).
   */
  readonly priceSourceOptional?: boolean;
  /** Model `inference_types` that serve this task (any one is enough). */
  readonly inferenceTypes: readonly string[];
  /** The rate-limit pool a submission spends (shared with the v1 twins). */
  readonly pool: PoolId;
  readonly resultKind: ResultKind;
  /** The endpoint answers at once (`{ prompt, negative_prompt }`) instead of with a `request_id`. */
  readonly sync?: boolean;
  /** The field that names the model (`model`, or `model_slug` for prompt enhancement). */
  readonly modelField: string | null;
  readonly v1: readonly V1Endpoint[];
  /** Where a field list comes from the public docs rather than the spec (see docs/deapi-contract.md#tasks-and-their-request-fields). */
  readonly source: string;
}
