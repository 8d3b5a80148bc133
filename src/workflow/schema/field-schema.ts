import type { FieldSpec, FileRule, TaskSpec } from '../../service/index.js';
import { formatBytes } from '../yaml/read-source-file.js';

/** A JSON Schema object (draft-07), as plain data. */
export type JsonSchema = { readonly [key: string]: unknown };

/** Pointer of the shared "this string holds an expression" schema. */
export const EXPRESSION_REF = '#/definitions/expression';

/** Schema of one `with` field: its rules from the catalogue, or an expression decided later. */
export function fieldSchema(field: FieldSpec): JsonSchema {
  return { description: describeField(field), anyOf: [baseSchema(field), { $ref: EXPRESSION_REF }] };
}

/** Schema of a task's `with` map: known fields only. Required fields are a rule, since defaults may fill them. */
export function taskWithSchema(task: TaskSpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of task.fields) properties[field.name] = fieldSchema(field);
  return {
    type: 'object',
    description: `Request fields of ${task.id} (${task.title}, POST ${task.path}).`,
    additionalProperties: false,
    properties,
  };
}

function baseSchema(field: FieldSpec): JsonSchema {
  switch (field.type) {
    case 'string':
      return compact({
        type: 'string',
        enum: field.enum,
        minLength: field.minLength,
        maxLength: field.maxLength,
        pattern: field.https ? '^https://' : field.url ? '^https?://' : undefined,
      });
    case 'integer':
    case 'number':
      return compact({ type: field.type, enum: field.enum, minimum: field.min, maximum: field.max });
    case 'boolean':
      return { type: 'boolean' };
    case 'file':
      return { type: 'string', minLength: 1 };
    case 'files':
      return compact({ type: 'array', minItems: 1, items: { type: 'string', minLength: 1 }, maxItems: field.maxItems });
    case 'text-or-texts':
      return compact({ type: ['string', 'array'], items: { type: 'string' }, minItems: 1, maxItems: field.maxItems });
    case 'array':
      return {
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', minLength: 1 }, weight: { type: 'number' } },
        },
      };
  }
}

function describeField(field: FieldSpec): string {
  const notes = [field.description];
  if (field.required) {
    const fill = field.modelDefault ? `the model's info.defaults.${field.modelDefault}` : undefined;
    const value = field.default === undefined ? undefined : JSON.stringify(field.default);
    notes.push(fill || value ? `Required; filled from ${[fill, value].filter(Boolean).join(', else ')} when left out.` : 'Required.');
  }
  if (field.file) notes.push(describeFileRule(field.file));
  if (field.limits) notes.push(`Bounded by the model's info.limits (${Object.values(field.limits).join(', ')}).`);
  if (field.requires) notes.push(`Needs ${field.requires}.`);
  return notes.join(' ');
}

/** `Formats: jpg, png; at most 10 MiB.` */
export function describeFileRule(rule: FileRule): string {
  return `A file path (relative to the workflow) or a step result. Formats: ${rule.formats.join(', ')}; at most ${formatBytes(rule.maxBytes)}.`;
}

function compact(schema: Record<string, unknown>): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined));
}
