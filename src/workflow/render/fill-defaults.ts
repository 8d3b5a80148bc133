import type { ModelInfo } from '../../service/index.js';
import type { FieldSpec, TaskSpec } from '../../service/index.js';

/** A value filled in for a required field that was left out. */
export interface FilledValue {
  readonly field: string;
  readonly value: string | number | boolean;
  /** `model Kokoro info.defaults.lang` or `field default`. */
  readonly from: string;
}

/** What was filled, and the required fields nothing could fill. */
export interface FillResult {
  readonly filled: readonly FilledValue[];
  readonly missing: readonly FieldSpec[];
}

/**
 * Fills required fields left out of a request: first from the chosen model's `info.defaults`
 * (the catalogue says which key), then from the field's own default. Fields of an
 * exactly-one-of group are never filled (the user must choose).
 */
export function fillDefaults(task: TaskSpec, isPresent: (field: string) => boolean, model: ModelInfo | undefined): FillResult {
  const grouped = new Set(task.exactlyOneOf.flat());
  const filled: FilledValue[] = [];
  const missing: FieldSpec[] = [];
  for (const field of task.fields) {
    if (!field.required || grouped.has(field.name) || isPresent(field.name)) continue;
    const fromModel = field.modelDefault === undefined ? undefined : model?.info.defaults[field.modelDefault];
    if (fromModel !== undefined && model) filled.push({ field: field.name, value: fromModel, from: `model ${model.slug} info.defaults.${field.modelDefault}` });
    else if (field.default !== undefined) filled.push({ field: field.name, value: field.default, from: 'field default' });
    else missing.push(field);
  }
  return { filled, missing };
}
