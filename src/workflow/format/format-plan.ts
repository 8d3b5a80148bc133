import { relative } from 'node:path';
import type { Plan } from '../validate/build-plan.js';

/** The plan as a few lines of text: steps, items, edges, filled defaults, model source; paths relative to `cwd`. */
export function formatPlan(plan: Plan, cwd: string = process.cwd()): string[] {
  const steps = plan.steps.length;
  const output = relative(cwd, plan.output_dir) || '.';
  const lines = [
    `${plan.file}: valid — ${steps} step${steps === 1 ? '' : 's'}, ${plan.jobs} job${plan.jobs === 1 ? '' : 's'}; output ${output}/; models: ${plan.model_source.description}`,
  ];
  const idWidth = Math.max(...plan.steps.map((s) => s.id.length), 2);
  const taskWidth = Math.max(...plan.steps.map((s) => s.task.length), 4);
  for (const step of plan.steps) {
    const waits = plan.edges.filter((e) => e.to === step.id).map((e) => `${e.from} (${e.kind === 'item' ? 'per item' : e.kind === 'all' ? 'all items' : 'once'})`);
    const source = step.source ?? 'runs once';
    const after = waits.length > 0 ? `; after ${waits.join(', ')}` : '';
    lines.push(`  ${step.id.padEnd(idWidth)}  ${step.task.padEnd(taskWidth)}  ${String(step.items).padStart(6)} item${step.items === 1 ? ' ' : 's'}  ${source}${after}`);
  }
  const filled = plan.steps.flatMap((s) => s.filled.map((f) => `    steps.${s.id}.with.${f.field} = ${JSON.stringify(f.value)}  (${f.from})`));
  if (filled.length > 0) lines.push('  filled from defaults:', ...filled);
  return lines;
}
