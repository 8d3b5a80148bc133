/** What `deflow models` does (models.ts defines the command). */
import { DeflowError } from '../../common/index.js';
import type { ModelInfo } from '../../service/index.js';
import { findTask, TASK_IDS, TASKS } from '../../service/index.js';
import type { CliIO } from '../../common/index.js';
import { EXIT } from '../../common/index.js';
import type { ServiceOptionValues } from '../service-options.js';
import { withServiceSession } from '../service-session.js';
import { formatTable } from '../text-table.js';

export interface ModelsOptions extends ServiceOptionValues {
  readonly task?: string;
  readonly json?: boolean;
}

export async function runModels(options: ModelsOptions, io: CliIO): Promise<number> {
  if (options.task !== undefined && !findTask(options.task)) {
    throw new DeflowError('E_USAGE_TASK', `--task: expected one of ${TASK_IDS.join(', ')}, got ${JSON.stringify(options.task)}`);
  }
  const models = await withServiceSession(options, io, 'api', ({ client }) =>
    client.listModels(options.task === undefined ? {} : { task: options.task }),
  );
  if (options.json) {
    io.stdout.write(`${JSON.stringify(models, null, 2)}\n`);
    return EXIT.ok;
  }
  if (models.length === 0) {
    io.stderr.write(options.task ? `no model serves ${options.task}\n` : 'the service listed no models\n');
    return EXIT.ok;
  }
  const rows = models.map((m) => [m.slug, m.name, tasksOf(m), summariseLimits(m)]);
  io.stdout.write(`${formatTable(['slug', 'name', 'tasks', 'key limits'], rows)}\n`);
  return EXIT.ok;
}

/** The deflow task ids a model serves; its raw inference types when none matches. */
function tasksOf(model: ModelInfo): string {
  const ids = TASKS.filter((t) => t.inferenceTypes.some((type) => model.inference_types.includes(type))).map((t) => t.id);
  return ids.length > 0 ? ids.join(', ') : model.inference_types.join(', ') || '-';
}

const SHOWN_LIMITS = 4;

/** `min_x`/`max_x` pairs as `x a-b`, other limits as `key=value`; the first few only. */
export function summariseLimits(model: ModelInfo): string {
  const limits = model.info.limits;
  const parts: string[] = [];
  const done = new Set<string>();
  for (const key of Object.keys(limits)) {
    if (done.has(key)) continue;
    const match = /^(min|max)_(.+)$/.exec(key);
    if (match) {
      const name = match[2]!;
      const min = limits[`min_${name}`];
      const max = limits[`max_${name}`];
      done.add(`min_${name}`).add(`max_${name}`);
      if (typeof min === 'object' || typeof max === 'object') continue;
      if (min === undefined) parts.push(`${name} ≤${String(max)}`);
      else if (max === undefined) parts.push(`${name} ≥${String(min)}`);
      else parts.push(min === max ? `${name} ${String(min)}` : `${name} ${String(min)}-${String(max)}`);
    } else {
      const value = limits[key];
      parts.push(`${key}=${Array.isArray(value) ? value.join('|') : String(value)}`);
    }
  }
  const shown = parts.slice(0, SHOWN_LIMITS).join(', ');
  return parts.length > SHOWN_LIMITS ? `${shown}, …` : shown || '-';
}
