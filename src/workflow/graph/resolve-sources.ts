import type { StepAnalysis } from './analyze-steps.js';
import type { Workflow } from '../types.js';
import type { ItemList } from '../items/item-list.js';
import { type ItemSourceResult, resolveItemSource } from '../items/resolve-item-source.js';

/** Lists the items of every step that has its own source (glob, items, file, matrix), in parallel. */
export async function resolveSources(workflow: Workflow, inputs: Readonly<Record<string, unknown>>): Promise<Map<string, ItemSourceResult>> {
  const entries = await Promise.all(
    workflow.steps.flatMap((step) => {
      const source = step.forEach;
      if (!source || source.kind === 'step') return [];
      return [resolveItemSource(source, workflow, inputs).then((result) => [step.id, result] as const)];
    }),
  );
  return new Map(entries);
}

/** The items of a step: its own source's, or its chain root's; undefined when it does not fan out or the source failed. */
export function itemsOfStep(stepId: string, analysis: StepAnalysis, sources: ReadonlyMap<string, ItemSourceResult>): ItemList | undefined {
  const root = analysis.rootOf(stepId);
  const result = root === undefined ? undefined : sources.get(root);
  return result?.ok ? result.items : undefined;
}
