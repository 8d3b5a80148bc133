import { itemScopes, prepareScope } from '../expressions/evaluate.js';
import { contextsOf, type StaticValue, staticValue } from '../expressions/static-value.js';
import type { ContextName, StepDef, ValueTemplate } from '../types.js';
import type { RuleContext } from './rule-context.js';

/** One value of a field known before the run: per item when it reads `item`, else once. */
export interface KnownValue {
  /** The item index, when the value depends on the item. */
  readonly k?: number;
  /** The item's value (not its whole context: a million items keep a million of these). */
  readonly itemValue?: unknown;
  readonly value: StaticValue;
}

const WITH_INPUTS = new Set<ContextName>(['inputs']);
const WITH_ITEM = new Set<ContextName>(['inputs', 'item']);

/**
 * The values a `with` field will take that can be known now: literals, expressions over
 * `inputs`, and expressions over `item` (evaluated for each item). Values that read `steps`
 * or `run` are only known during the run and are skipped here (the engine checks them then).
 */
export function* knownValues(context: RuleContext, step: StepDef, value: ValueTemplate): Generator<KnownValue> {
  if (value.kind === 'literal') {
    yield { value: { kind: 'value', value: value.value } };
    return;
  }
  const contexts = contextsOf(value);
  if (!contexts) return;
  if (!contexts.has('item')) {
    yield { value: staticValue(value, WITH_INPUTS, prepareScope({ inputs: context.inputs })) };
    return;
  }
  const items = context.itemsOf(step.id);
  if (!items) return;
  const scopeOf = itemScopes(context.inputs);
  for (let k = 0; k < items.length; k++) {
    const item = items.at(k);
    yield { k, itemValue: item.value, value: staticValue(value, WITH_ITEM, scopeOf(item), contexts) };
  }
}

/**
 * Known values already worked out, by rule context, step and field: several rules read the
 * same field's values, and a field over `item` is evaluated once per item (10,000 items, five
 * rules: once, not five times). A context, its steps and their items do not change once the
 * rules run.
 */
const known = new WeakMap<RuleContext, WeakMap<StepDef, Map<string, KnownValues>>>();

/**
 * Values worked out once: shared ones as they are, per-item ones as bare values (a million items
 * keep a million values, not a million records): a known value as itself, the rare unknown or
 * failed one wrapped in a `NotAValue`.
 */
type KnownValues = { readonly shared: readonly KnownValue[] } | { readonly perItem: readonly unknown[]; readonly itemValue: (k: number) => unknown };

/** A per-item value that is not known (its StaticValue kept whole). */
class NotAValue {
  constructor(readonly value: Exclude<StaticValue, { kind: 'value' }>) {}
}

/** The known values of a step's field by name, or nothing when the field is absent. */
export function knownFieldValues(context: RuleContext, step: StepDef, field: string): Iterable<KnownValue> {
  let bySteps = known.get(context);
  if (bySteps === undefined) known.set(context, (bySteps = new WeakMap()));
  let byField = bySteps.get(step);
  if (byField === undefined) bySteps.set(step, (byField = new Map()));
  let values = byField.get(field);
  if (values === undefined) {
    values = workOut(context, step, field);
    byField.set(field, values);
  }
  if ('shared' in values) return values.shared;
  const { perItem, itemValue } = values;
  return (function* () {
    for (let k = 0; k < perItem.length; k++) {
      const value = perItem[k];
      yield { k, itemValue: itemValue(k), value: value instanceof NotAValue ? value.value : { kind: 'value', value } };
    }
  })();
}

function workOut(context: RuleContext, step: StepDef, field: string): KnownValues {
  const value = step.with.get(field);
  if (!value) return { shared: [] };
  const items = value.kind === 'literal' ? undefined : context.itemsOf(step.id);
  if (items === undefined || !contextsOf(value)?.has('item')) return { shared: [...knownValues(context, step, value)] };
  const perItem: unknown[] = [];
  for (const { value: one } of knownValues(context, step, value)) perItem.push(one.kind === 'value' ? one.value : new NotAValue(one));
  return { perItem, itemValue: (k) => items.valueAt(k) };
}
