/**
 * Turns one item into what the quote prices: the price-twin request it would send (files
 * measured instead of uploaded where the twin takes a length; blank images of the known size
 * in place of images not produced yet), the class it belongs to, or the size range to price
 * when an input is still pending upstream. Also what its result will be, for the steps that
 * read it.
 */
import { findCatalogueModel } from '../../service/index.js';
import { getTask } from '../../service/index.js';
import type { TaskId } from '../../service/index.js';
import type { DurationReader } from './media-duration.js';
import { isFileValue, priceTwinFields, requestKey, type SizeVariable, sizeVariableOf, twinTakes, withFileDigests } from './price-classes.js';
import { placeholderImageField, placeholderShown } from './placeholder-image.js';
import type { ClassRegistry, Entry, WorkflowBasis } from './quote-entries.js';
import { describeOutput, type ImageSize, type InputMedia, type OutputFacts, type Range } from './quote-estimate.js';
import type { QuoteItem, QuoteStep } from './quote-input.js';
import { type PendingSource, planPending } from './quote-pending.js';
import type { UrlLength } from './url-length.js';

export interface PrepareContext {
  readonly digest: (path: string) => Promise<string>;
  readonly durations: DurationReader;
  /** The pixel size of a local image, or undefined. */
  readonly imageSize: (path: string) => Promise<ImageSize | undefined>;
  readonly classes: ClassRegistry;
  /** What feeds pending field `field` of `item`. */
  readonly sourceOf: (step: QuoteStep, item: QuoteItem, field: string) => PendingSource;
  /** Whether a later step reads this step's results (only then are its results sized). */
  readonly readDownstream: (stepId: string) => boolean;
  /** The length of a URL source, read off its price. */
  readonly urlLength: (task: TaskId, variable: SizeVariable, fields: Readonly<Record<string, unknown>>, urlField: string) => Promise<UrlLength>;
}

export interface PreparedItem {
  readonly entry: Entry;
  readonly facts: OutputFacts | undefined;
  readonly model: string | null;
}

const exact = (v: number): Range => ({ point: v, low: v, high: v });
/** Source fields that name a URL, per task with a media-seconds variable. */
const URL_FIELDS = ['source_url', 'video_url'];

/** Prepares `item` of `step` for pricing. */
export async function prepareItem(step: QuoteStep, item: QuoteItem, ctx: PrepareContext): Promise<PreparedItem> {
  const task = step.task;
  const spec = getTask(task);
  const modelValue = spec.modelField ? item.fields[spec.modelField] : undefined;
  const model = typeof modelValue === 'string' ? modelValue : null;
  const variable = sizeVariableOf(task);
  const fields = priceTwinFields(task, item.fields);
  for (const name of item.pending) delete fields[name];
  const shownOverrides: Record<string, unknown> = {};

  let assumptions: readonly string[] = [];
  let estimated = false;
  let size: Range | null = null;
  let sizeEstimated = false;
  let parts = 1;
  let note = '';
  let media: InputMedia = {};
  let workflow: WorkflowBasis | undefined;
  // A pending field the twin does not take cannot move the price: the twin prices without it.
  const pending = item.pending.filter((name) => twinTakes(task, name));
  const untaken = item.pending.filter((name) => !twinTakes(task, name));
  if (untaken.length > 0) note = `the twin does not take ${untaken.map((n) => `\`${n}\``).join(', ')}`;
  if (pending.length > 0) {
    const plan = planPending(task, pending, (field) => ctx.sourceOf(step, item, field));
    if (plan.kind === 'unknown') return { entry: { kind: 'unknown', item, assumptions: [], reason: plan.reason, wouldKnow: plan.wouldKnow }, facts: undefined, model };
    Object.assign(fields, plan.placeholders);
    for (const [name, sizes] of Object.entries(plan.images)) {
      const one = spec.fields.find((f) => f.name === name)?.type === 'file';
      fields[name] = one ? placeholderImageField(sizes[0]!) : sizes.map(placeholderImageField);
      shownOverrides[name] = one ? placeholderShown(sizes[0]!) : sizes.map(placeholderShown);
    }
    assumptions = plan.assumptions;
    media = plan.media;
    workflow = plan.workflow;
    estimated = true;
    if (plan.size) {
      size = plan.size;
      sizeEstimated = true;
      parts = plan.parts;
      const limit = variable?.measure === 'characters' ? textLimit(model) : undefined;
      if (limit !== undefined && size.high > limit) {
        assumptions = [...assumptions, `some texts may be longer than ${model}'s max_text of ${limit} characters; those jobs would be refused`];
      }
    }
  }

  if (variable && variable.via === 'twin' && !sizeEstimated) {
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

  const sized = ctx.readDownstream(step.id);
  if (sized && pending.length === 0) media = await localMedia(task, item.fields, ctx);
  let outputSize = size;
  if (sized && !size && variable?.measure === 'media-seconds') {
    const urlField = URL_FIELDS.find((name) => typeof fields[name] === 'string');
    if (urlField) {
      const length = await ctx.urlLength(task, variable, fields, urlField);
      if (length.ok) {
        outputSize = length.seconds;
        media = { ...media, assumptions: [...(media.assumptions ?? []), length.assumption] };
      }
    }
  }

  const shown = { ...(await withFileDigests(withoutKeys(fields, shownOverrides), ctx.digest)), ...shownOverrides };
  const facts = sized ? describeOutput(task, { ...item.fields, ...fields }, outputSize, media, model) : undefined;
  const basis = workflow ? { workflow } : {};
  if (variable && size) {
    const template = { ...fields };
    const shownTemplate = { ...shown };
    delete template[variable.name];
    delete shownTemplate[variable.name];
    if (variable.via === 'placeholder-text' && variable.replaces) {
      delete template[variable.replaces];
      delete shownTemplate[variable.replaces];
    }
    const cls = ctx.classes.classFor(task, variable, template, shownTemplate, parts);
    cls.items++;
    cls.xs.add(size.point);
    cls.xs.add(size.low);
    cls.xs.add(size.high);
    if (sizeEstimated) return { entry: { kind: 'sized-estimate', item, assumptions, cls, size, ...basis }, facts, model };
    const x = size.point;
    const request = { key: requestKey(task, { ...cls.shownTemplate, [variable.name]: x }), task, fields: { ...template, [variable.name]: x }, shown };
    return { entry: { kind: 'request', item, assumptions, request, cls, x, note, estimated, ...basis }, facts, model };
  }
  const request = { key: requestKey(task, shown), task, fields, shown };
  return { entry: { kind: 'request', item, assumptions, request, cls: null, x: null, note, estimated, ...basis }, facts, model };
}

/** What the item's own local media says, for the size of its result (an image's pixels, a video's seconds). */
async function localMedia(task: TaskId, fields: Readonly<Record<string, unknown>>, ctx: PrepareContext): Promise<InputMedia> {
  const spec = getTask(task);
  for (const field of spec.fields) {
    const value = fields[field.name];
    const file = isFileValue(value) ? value : Array.isArray(value) && isFileValue(value[0]) ? value[0] : undefined;
    if (!file || !field.file) continue;
    if (field.file.families.includes('image')) {
      const size = await ctx.imageSize(file.path);
      if (size) return { size };
    } else if (field.file.families.includes('video')) {
      const seconds = await ctx.durations.read(file.path);
      if (seconds !== undefined) return { seconds: exact(seconds) };
    }
  }
  return {};
}

function withoutKeys(fields: Readonly<Record<string, unknown>>, drop: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) if (!(name in drop)) out[name] = value;
  return out;
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
