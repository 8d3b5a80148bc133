/**
 * Validates a submission or price request the way the service does (docs/deapi-contract.md#errors): every
 * failing field at once, several messages per field, lenient coercion of form values, model
 * defaults filling required fields a client left out, unknown fields ignored.
 */
import { type Endpoint, endpointExactlyOneOf, endpointFields, endpointInferenceTypes } from '../../service/index.js';
import type { ModelInfo } from '../../service/index.js';
import type { FieldSpec } from '../../service/index.js';
import { addError, MESSAGES } from './error-messages.js';
import { modelDefault } from './model-limits.js';
import type { FieldErrors, ModelRegistry, ParsedBody, ValidationOptions, ValidationResult, ValidFile } from '../types.js';
import { checkFileField } from './validate-files.js';
import { checkTaskRules } from './validate-task-rules.js';
import { checkFixedRules, checkModelLimits, checkWebhookHosts, coerceField } from './validate-value.js';

const isFileField = (field: FieldSpec): boolean => field.type === 'file' || field.type === 'files';

function rawValue(body: ParsedBody, name: string): unknown {
  const value = body.values[name] ?? body.values[`${name}[]`];
  return value === null ? undefined : value;
}

/** The model the request names, and whether it may be used for defaults and limits. */
function resolveModel(
  endpoint: Endpoint,
  fields: readonly FieldSpec[],
  body: ParsedBody,
  models: ModelRegistry,
  errors: FieldErrors,
): { model: ModelInfo | null; named: boolean } {
  const name = endpoint.task?.modelField;
  if (!name || !fields.some((f) => f.name === name)) return { model: null, named: false };
  const raw = rawValue(body, name);
  if (raw === undefined || raw === '') {
    addError(errors, name, MESSAGES.required(name));
    return { model: null, named: true };
  }
  if (typeof raw !== 'string') {
    addError(errors, name, MESSAGES.string(name));
    return { model: null, named: true };
  }
  const model = models.find(raw);
  if (!model) {
    addError(errors, name, MESSAGES.modelUnknown());
    return { model: null, named: true };
  }
  const types = endpointInferenceTypes(endpoint);
  if (types.length > 0 && !types.some((t) => model.inference_types.includes(t))) {
    addError(errors, name, MESSAGES.modelTask(endpoint.task?.title ?? ''));
    return { model: null, named: true };
  }
  return { model, named: true };
}

/** The value a left-out field takes: the model's default for a required field, else the field's. */
function fallbackValue(field: FieldSpec, model: ModelInfo | null): unknown {
  const fromModel = field.required ? modelDefault(model, field.modelDefault) : undefined;
  if (fromModel !== undefined) {
    const coerced = coerceField(field, field.type === 'string' ? String(fromModel) : fromModel);
    if (coerced.ok) return coerced.value;
  }
  return field.default;
}

/** Validates `body` for `endpoint`; on success the values are coerced and defaults filled in. */
export async function validateRequest(
  endpoint: Endpoint,
  body: ParsedBody,
  models: ModelRegistry,
  options: ValidationOptions,
): Promise<ValidationResult> {
  const fields = endpointFields(endpoint);
  const groups = endpointExactlyOneOf(endpoint);
  const grouped = new Set(groups.flat());
  const errors: FieldErrors = {};
  const { model, named } = resolveModel(endpoint, fields, body, models, errors);
  const modelField = endpoint.task?.modelField;
  // With a bad model, fields it would have defaulted are not reported missing as well.
  const modelBroken = named && model === null;
  const values: Record<string, unknown> = {};
  const files: Record<string, ValidFile[]> = {};
  const present = (name: string): boolean => rawValue(body, name) !== undefined || (body.files[name]?.length ?? 0) > 0;

  const fileChecks = fields.filter(isFileField).map(async (field) => {
    const uploads = body.files[field.name] ?? [];
    if (uploads.length === 0) {
      if (rawValue(body, field.name) !== undefined) addError(errors, field.name, MESSAGES.file(field.name));
      else if (field.required && !grouped.has(field.name)) addError(errors, field.name, MESSAGES.required(field.name));
      return;
    }
    const result = await checkFileField(field, uploads, model);
    for (const message of result.messages) addError(errors, field.name, message);
    if (result.messages.length === 0) files[field.name] = result.files;
  });

  for (const field of fields) {
    if (isFileField(field)) continue;
    if (field.name === modelField) {
      if (model) values[field.name] = model.slug;
      continue;
    }
    const raw = rawValue(body, field.name);
    if (raw === undefined) {
      const fallback = fallbackValue(field, model);
      if (fallback !== undefined) values[field.name] = fallback;
      else if (field.required && !grouped.has(field.name) && !(modelBroken && field.modelDefault)) {
        addError(errors, field.name, MESSAGES.required(field.name));
      }
      continue;
    }
    const coerced = coerceField(field, raw);
    if (!coerced.ok) {
      addError(errors, field.name, coerced.message ?? MESSAGES.string(field.name));
      continue;
    }
    const fixed = checkFixedRules(field, coerced.value, options);
    const messages = fixed.length > 0 ? fixed : checkModelLimits(field, coerced.value, model);
    for (const message of messages) addError(errors, field.name, message);
    values[field.name] = coerced.value;
  }
  await Promise.all(fileChecks);
  for (const [field, message] of Object.entries(await checkWebhookHosts(fields, values, options))) addError(errors, field, message);
  checkTaskRules({ endpoint, fields, groups, present, values, files, model }, errors);
  if (Object.keys(errors).length > 0) return { ok: false, errors: orderErrors(errors, fields) };
  return { ok: true, request: { endpoint, model, values, files } };
}

/** Errors in the order of the field list (as Laravel reports them), then any others. */
function orderErrors(errors: FieldErrors, fields: readonly FieldSpec[]): FieldErrors {
  const ordered: FieldErrors = {};
  for (const field of fields) {
    const messages = errors[field.name];
    if (messages) ordered[field.name] = messages;
  }
  for (const [name, messages] of Object.entries(errors)) ordered[name] ??= messages;
  return ordered;
}
