/**
 * Turns one item into what the quote prices: the price-twin request it would send (files
 * measured instead of uploaded where the twin takes a length), the class it belongs to, or
 * the size range to price when an input is still pending upstream.
 */
import { findCatalogueModel } from '../../service/index.js';
import { getTask } from '../../service/index.js';
import type { DurationReader } from './media-duration.js';
import { isFileValue, priceTwinFields, requestKey, sizeVariableOf, withFileDigests } from './price-classes.js';
import type { ClassRegistry, Entry } from './quote-entries.js';
import { describeOutput, type OutputFacts, planPending, type Range } from './quote-estimate.js';
import type { QuoteItem, QuoteStep } from './quote-input.js';

export interface PrepareContext {
  readonly digest: (path: string) => Promise<string>;
  readonly durations: DurationReader;
  readonly classes: ClassRegistry;
  /** What is known of the results feeding `item`'s pending fields. */
  readonly upstreamFacts: (step: QuoteStep, item: QuoteItem) => OutputFacts | undefined;
}

export interface PreparedItem {
  readonly entry: Entry;
  readonly facts: OutputFacts | undefined;
  readonly model: string | null;
}

const exact = (v: number): Range => ({ point: v, low: v, high: v });

/** Prepares `item` of `step` for pricing. */
export async function prepareItem(step: QuoteStep, item: QuoteItem, ctx: PrepareContext): Promise<PreparedItem> {
  const task = step.task;
  const spec = getTask(task);
  const modelValue = spec.modelField ? item.fields[spec.modelField] : undefined;
  const model = typeof modelValue === 'string' ? modelValue : null;
  const variable = sizeVariableOf(task);
  const fields = priceTwinFields(task, item.fields);
  for (const name of item.pending) delete fields[name];

  let assumptions: readonly string[] = [];
  let estimated = false;
  let size: Range | null = null;
  let sizeEstimated = false;
  let note = '';
  if (item.pending.length > 0) {
    const plan = planPending(task, item.pending, { step: step.upstream, facts: ctx.upstreamFacts(step, item) });
    if (plan.kind === 'unknown') return { entry: { kind: 'unknown', item, assumptions: [], reason: plan.reason }, facts: undefined, model };
    Object.assign(fields, plan.placeholders);
    assumptions = plan.assumptions;
    estimated = true;
    if (plan.size) {
      size = plan.size;
      sizeEstimated = true;
      const limit = variable?.measure === 'characters' ? textLimit(model) : undefined;
      if (limit !== undefined && size.high > limit) {
        assumptions = [...assumptions, `some texts may be longer than ${model}'s max_text of ${limit} characters; those jobs would be refused`];
      }
    }
  }

  if (variable && !sizeEstimated) {
    const replaced = variable.replaces ? fields[variable.replaces] : undefined;
    if (variable.measure === 'media-seconds' && isFileValue(replaced)) {
      const seconds = await ctx.durations.read(replaced.path);
      if (seconds !== undefined) {
        delete fields[variable.replaces!];
        size = exact(seconds);
        note = `${variable.name}=${formatNumber(seconds)} read locally (no upload)`;
      } else {
        note = 'sent with the file (its length could not be read locally)';
      }
    } else if (variable.measure === 'characters' && typeof replaced === 'string') {
      delete fields[variable.replaces!];
      size = exact([...replaced].length);
      note = `${variable.name}=${size.point} (the text's length)`;
    } else if (variable.replaces === null && typeof fields[variable.name] === 'number') {
      size = exact(fields[variable.name] as number);
    }
  }

  const shown = await withFileDigests(fields, ctx.digest);
  const facts = describeOutput(task, fields, size);
  if (variable && size) {
    const template = { ...fields };
    const shownTemplate = { ...shown };
    delete template[variable.name];
    delete shownTemplate[variable.name];
    const cls = ctx.classes.classFor(task, variable, template, shownTemplate);
    cls.items++;
    cls.xs.add(size.point);
    cls.xs.add(size.low);
    cls.xs.add(size.high);
    if (sizeEstimated) return { entry: { kind: 'sized-estimate', item, assumptions, cls, size }, facts, model };
    const x = size.point;
    const request = { key: requestKey(task, { ...shownTemplate, [variable.name]: x }), task, fields: { ...template, [variable.name]: x }, shown };
    return { entry: { kind: 'request', item, assumptions, request, cls, x, note, estimated }, facts, model };
  }
  const request = { key: requestKey(task, shown), task, fields, shown };
  return { entry: { kind: 'request', item, assumptions, request, cls: null, x: null, note, estimated }, facts, model };
}

/** The built-in catalogue's `max_text` of a model (a hint: the live list may differ). */
function textLimit(model: string | null): number | undefined {
  const limit = model ? findCatalogueModel(model)?.info.limits['max_text'] : undefined;
  return typeof limit === 'number' ? limit : undefined;
}

/** A number as a basis line shows it: at most 3 decimals. */
export function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(3)));
}
