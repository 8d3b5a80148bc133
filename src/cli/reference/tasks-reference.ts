/**
 * docs/reference/tasks.md, generated from the service catalogue (src/service/tasks-*.ts) and the
 * built-in model catalogue (src/service/model-catalogue.ts): per task, its endpoints, price
 * twin, rate-limit pool and result kind, its v1 twins, and the models that serve it. The fields
 * of each task are in docs/workflow-language.md's task reference (generated from the same data).
 */
import { MODEL_CATALOGUE, TASKS } from '../../service/index.js';
import type { ModelInfo, TaskSpec } from '../../service/index.js';
import { anchor, cell, code, generatedHeader, table } from './markdown.js';

/** The task reference page. */
export function renderTasksReference(): string {
  const lines = [
    ...generatedHeader('Task reference', 'the service catalogue (`src/service/tasks-*.ts`) and the model catalogue (`src/service/model-catalogue.ts`)'),
    `deflow knows ${TASKS.length} tasks, one per v2 submission endpoint of deAPI. The fields each task takes, with their types, ranges and defaults, are in [the workflow language's task reference](../workflow-language.md#task-reference); the models listed here are the built-in catalogue that \`deflow validate --offline\` and the emulator use (with an API key, \`validate\` reads the live model list instead).`,
    '',
    ...table(
      ['task', 'v2 endpoint', 'rate-limit pool', 'result', 'models'],
      TASKS.map((t) => [`[${code(t.id)}](#${anchor(t.id)})`, code(`POST ${t.path}`), code(t.pool), t.resultKind, String(modelsOf(t).length)]),
    ),
    '',
  ];
  for (const task of TASKS) lines.push(...renderTask(task));
  return `${lines.join('\n').trimEnd()}\n`;
}

function modelsOf(task: TaskSpec): ModelInfo[] {
  const types = new Set([...task.inferenceTypes, ...task.v1.flatMap((v) => v.inferenceTypes ?? [])]);
  return MODEL_CATALOGUE.filter((m) => m.inference_types.some((t) => types.has(t)));
}

function renderTask(task: TaskSpec): string[] {
  const facts = [
    `- Submission: ${code(`POST ${task.path}`)} (${task.body === 'multipart' ? 'multipart form' : 'JSON'} body); ${task.sync ? 'answers at once, with no job to poll' : 'answers with a `request_id` to poll'}.`,
    `- Price twin: ${code(`POST ${task.pricePath}`)}${task.priceFields.length > 0 ? `; takes ${task.priceFields.map((f) => code(f.name)).join(', ')} in place of (or beside) the submission's fields` : ''}${task.priceOmits?.length ? `; ignores ${task.priceOmits.map(code).join(', ')}` : ''}${task.priceOptional?.length ? `; does not need ${task.priceOptional.map(code).join(', ')}` : ''}.`,
    `- Rate-limit pool: ${code(task.pool)} (shared with its v1 twins).`,
    `- Result kind: **${task.resultKind}**.`,
    `- Model field: ${task.modelField ? code(task.modelField) : 'none'}; models serving inference types ${task.inferenceTypes.map(code).join(', ')}.`,
    `- Fields: [${task.id} in the workflow language](../workflow-language.md#${anchor(task.id)}).`,
  ];
  const lines = [`## ${code(task.id)}`, '', `${task.title}.`, '', ...facts, ''];
  if (task.v1.length > 0) {
    lines.push(...table(['v1 twin', 'its price twin'], task.v1.map((v) => [code(`POST ${v.path}`), v.pricePath ? code(`POST ${v.pricePath}`) : 'none'])), '');
  }
  const models = modelsOf(task);
  if (models.length > 0) {
    lines.push(
      ...table(
        ['model', 'name', 'limits', 'defaults'],
        models.map((m) => [code(m.slug), cell(m.name), cell(entries(m.info.limits)), cell(entries(m.info.defaults))]),
      ),
      '',
    );
  }
  return lines;
}

function entries(record: Readonly<Record<string, unknown>>): string {
  return Object.entries(record)
    .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ');
}
