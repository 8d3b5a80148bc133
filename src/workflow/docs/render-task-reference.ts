import { TASKS } from '../../service/index.js';
import type { FieldSpec, TaskSpec } from '../../service/index.js';
import { formatBytes } from '../yaml/read-source-file.js';

/** Markers around the generated part of docs/workflow-language.md. */
export const TASK_REFERENCE_BEGIN = '<!-- BEGIN GENERATED: task reference -->';
export const TASK_REFERENCE_END = '<!-- END GENERATED: task reference -->';

/** The task reference in Markdown, generated from the catalogue: one section per task id. */
export function renderTaskReference(): string {
  const summary = [
    '| task | endpoint (v2) | result kind |',
    '|---|---|---|',
    ...TASKS.map((t) => `| [\`${t.id}\`](#${anchor(t.id)}) | \`POST ${t.path}\` | ${t.resultKind}${t.sync ? ' (answers at once)' : ''} |`),
  ];
  return [...summary, '', ...TASKS.flatMap(renderTask)].join('\n');
}

function renderTask(task: TaskSpec): string[] {
  const lines = [
    `### \`${task.id}\``,
    '',
    `${task.title}: \`POST ${task.path}\`; result kind **${task.resultKind}**${task.modelField ? `; model field \`${task.modelField}\`` : ''}.`,
  ];
  if (task.exactlyOneOf.length > 0) lines.push(`Give exactly one of ${task.exactlyOneOf.map((g) => g.map((f) => `\`${f}\``).join(' / ')).join('; ')}.`);
  lines.push('', '| field | type | required | rules | description |', '|---|---|---|---|---|');
  for (const field of task.fields) lines.push(`| \`${field.name}\` | ${fieldType(field)} | ${required(field)} | ${rules(field)} | ${escape(field.description)} |`);
  lines.push('');
  return lines;
}

function fieldType(field: FieldSpec): string {
  const accepts = field.accepts?.length ? ` ← ${field.accepts.join(', ')}` : '';
  return `${field.type}${accepts}`;
}

function required(field: FieldSpec): string {
  if (!field.required) return 'no';
  const fills = [field.modelDefault ? `model \`info.defaults.${field.modelDefault}\`` : '', field.default === undefined ? '' : `\`${JSON.stringify(field.default)}\``].filter(Boolean);
  return fills.length > 0 ? `yes (else ${fills.join(', then ')})` : 'yes';
}

function rules(field: FieldSpec): string {
  const parts: string[] = [];
  if (field.enum) parts.push(`one of ${field.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (field.min !== undefined || field.max !== undefined) parts.push(`${field.min ?? '…'}–${field.max ?? '…'}`);
  if (field.minLength !== undefined || field.maxLength !== undefined) parts.push(`length ${field.minLength ?? 0}–${field.maxLength ?? '…'}`);
  if (field.maxItems !== undefined) parts.push(`at most ${field.maxItems} items`);
  if (field.https) parts.push('https URL');
  else if (field.url) parts.push('URL');
  if (field.file) parts.push(`${field.file.formats.join(', ')}; ≤ ${formatBytes(field.file.maxBytes)}`);
  if (field.limits) parts.push(`model \`info.limits\`: ${Object.values(field.limits).join(', ')}`);
  if (field.requires) parts.push(`needs \`${field.requires}\``);
  return parts.length > 0 ? escape(parts.join('; ')) : '';
}

function escape(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function anchor(id: string): string {
  return id.replace(/[^a-z0-9-]/g, '');
}
