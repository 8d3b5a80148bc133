import type { StepDef } from '../types.js';
import type { RuleContext } from './rule-context.js';
import { knownFieldValues } from './static-field-values.js';

/** The models a step will use, as far as they are known before the run. */
export interface StepModels {
  /** The model field is absent (or the task has none). */
  readonly absent: boolean;
  /** Some items' model is only known during the run (it reads steps or run). */
  readonly dynamic: boolean;
  /** Distinct model slugs known now, with the first item (if per item) that uses each. */
  readonly slugs: ReadonlyMap<string, number | undefined>;
}

/** Collects the model slugs of a step from its model field (`model`, or `model_slug`). */
export function stepModels(context: RuleContext, step: StepDef): StepModels {
  const field = step.spec?.modelField;
  if (!field || !step.with.has(field)) return { absent: true, dynamic: false, slugs: new Map() };
  const slugs = new Map<string, number | undefined>();
  let dynamic = true;
  for (const known of knownFieldValues(context, step, field)) {
    if (known.value.kind !== 'value') continue;
    dynamic = false;
    const slug = known.value.value;
    if (typeof slug === 'string' && !slugs.has(slug)) slugs.set(slug, known.k);
  }
  return { absent: false, dynamic: dynamic && slugs.size === 0, slugs };
}
