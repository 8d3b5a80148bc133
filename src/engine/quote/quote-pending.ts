/**
 * How to quote an item whose fields wait for an upstream result: price-neutral fields get a
 * placeholder, a length the price depends on gets the range of what feeds it (the part of the
 * upstream result the field reads: a transcript's text, its timestamped JSON, the plain text
 * inside it; a gather sums its items), an image field gets a blank image of the size the
 * upstream step produces. Anything else is unknown, with what would make it known.
 */
import { assertNever } from '../../common/index.js';
import { findField, getTask } from '../../service/index.js';
import type { FieldSpec, TaskId } from '../../service/index.js';
import { sizeVariableOf } from './price-classes.js';
import { type ImageSize, type InputMedia, type OutputFacts, PRICE_NEUTRAL, type Range } from './quote-estimate.js';
import type { WorkflowBasis } from './quote-entries.js';

/** What feeds one pending field. */
export interface PendingSource {
  /** The upstream step it reads, when known. */
  readonly step: string | null;
  /** That step's task, when known (names what would make an unknown price known). */
  readonly task?: TaskId | undefined;
  /** Facts of each upstream item the field reads: one for a chain, every item for a gather. */
  readonly items: readonly (OutputFacts | undefined)[];
  /** What the field reads of each result after the step id (`['text']`, `['json']`, `['result_url']`); undefined: its text or media. */
  readonly path?: readonly (string | null)[] | undefined;
}

/** How to quote an item with pending fields. */
export type PendingPlan =
  | {
      readonly kind: 'estimate';
      /** Values for required price-neutral fields (others are left out). */
      readonly placeholders: Readonly<Record<string, unknown>>;
      /** Image fields to send as blank images of these sizes (one per upstream item for a list field). */
      readonly images: Readonly<Record<string, readonly ImageSize[]>>;
      /** Price-neutral fields that were pending. */
      readonly neutral: readonly string[];
      /** The range of the size variable, when the size itself is pending. */
      readonly size: Range | null;
      /** Texts the size is split over (a gathered list of texts). */
      readonly parts: number;
      /** What is known of the item's media input (and the assumptions behind it), for its own result's facts. */
      readonly media: InputMedia;
      readonly assumptions: readonly string[];
      /** Set when everything pending was priced from what the workflow fixes, with no assumption. */
      readonly workflow?: WorkflowBasis;
    }
  | { readonly kind: 'unknown'; readonly reason: string; readonly wouldKnow: string };

const PLACEHOLDER_TEXT = 'placeholder text for a price quote';

const sum = (ranges: readonly Range[]): Range =>
  ranges.reduce<Range>((s, r) => ({ point: s.point + r.point, low: s.low + r.low, high: s.high + r.high }), { point: 0, low: 0, high: 0 });

/** The characters a field receives of one result, by what it reads of it. */
function textRead(facts: OutputFacts | undefined, path: PendingSource['path']): Range | undefined {
  if (!facts) return undefined;
  if (path === undefined || path.length === 0) return facts.text;
  // The whole text, or the whole JSON (as long as its text); a part of the JSON has no known size.
  return path.length === 1 && (path[0] === 'text' || path[0] === 'json') ? facts.text : undefined;
}

const readsMedia = (path: PendingSource['path']): boolean => path === undefined || path.length === 0 || (path.length === 1 && (path[0] === 'result_url' || path[0] === 'path'));

function unknownSize(name: string, source: PendingSource, from: string): PendingPlan {
  const read = source.path && source.path.length > 0 ? ` (it reads \`${source.path.map((p) => p ?? '[…]').join('.')}\`)` : '';
  return {
    kind: 'unknown',
    reason: `the price depends on the length of \`${name}\` (from ${from}, not produced yet${read}), and nothing upstream tells how long it will be`,
    wouldKnow: wouldKnow(source.task, name),
  };
}

/** What, fixed in the workflow, would make a price depending on `field` known. */
export function wouldKnow(upstreamTask: TaskId | undefined, field: string): string {
  switch (upstreamTask) {
    case 'audio.transcribe':
    case 'video.describe':
      return `the source's length: a local media file (read locally), or a source URL the price twin can price`;
    case 'image.generate':
      return 'width and height fixed in the generating step';
    case 'image.edit':
    case 'image.upscale':
    case 'image.remove-background':
      return 'the size of the image it starts from: width and height fixed upstream, or a local image file';
    case 'video.generate':
    case 'video.animate':
    case 'video.audio-sync':
      return 'frames and fps fixed in the generating step';
    case 'image.ocr':
    case 'prompt.enhance':
      return `a fixed \`with.${field}\`: the length of this step's text depends on content nothing measures before it runs`;
    case undefined:
    case 'video.replace':
    case 'video.upscale':
    case 'video.remove-background':
    case 'audio.speech':
    case 'audio.music':
    case 'text.embed':
      return `a fixed \`with.${field}\`, or sizes fixed in the step it reads`;
    default:
      return assertNever(upstreamTask, 'task');
  }
}

/** Decides how an item of `task` whose `pending` fields are fed by `sources` can be quoted. */
export function planPending(task: TaskId, pending: readonly string[], sourceOf: (field: string) => PendingSource): PendingPlan {
  const spec = getTask(task);
  const variable = sizeVariableOf(task);
  const neutralSet = new Set(PRICE_NEUTRAL[task]);
  const placeholders: Record<string, unknown> = {};
  const images: Record<string, ImageSize[]> = {};
  const neutral: string[] = [];
  const assumptions = new Set<string>();
  const media: { seconds?: Range; size?: ImageSize } = {};
  const workflow: WorkflowBasis[] = [];
  let size: Range | null = null;
  let parts = 1;
  for (const name of pending) {
    const field = findField(spec, name);
    const source = sourceOf(name);
    const from = source.step ? `step ${source.step}` : 'an upstream step';
    if (neutralSet.has(name)) {
      neutral.push(name);
      if (field?.required) placeholders[name] = field.type === 'integer' || field.type === 'number' ? (field.default ?? -1) : PLACEHOLDER_TEXT;
      continue;
    }
    if (variable && variable.replaces === name) {
      const ranges = source.items.map((f) => (variable.measure === 'characters' ? textRead(f, source.path) : readsMedia(source.path) ? f?.seconds : undefined));
      if (ranges.length === 0 || ranges.some((r) => r === undefined)) return unknownSize(name, source, from);
      const range = sum(ranges as Range[]);
      size = variable.integer ? { point: Math.max(1, Math.round(range.point)), low: Math.max(1, Math.floor(range.low)), high: Math.max(1, Math.ceil(range.high)) } : range;
      if (variable.via === 'placeholder-text' && field?.type === 'text-or-texts' && source.items.length > 1) parts = source.items.length;
      if (variable.measure === 'media-seconds') media.seconds = range;
      const said = source.items.flatMap((f) => f?.assumptions ?? []);
      for (const a of said) assumptions.add(a);
      if (said.length === 0 && source.step) workflow.push({ step: source.step, what: `${variable.name}=${formatSize(range)} (what step ${source.step} is set to produce)` });
      continue;
    }
    const image = field ? imageSizes(field, source) : undefined;
    if (image) {
      images[name] = image.sizes;
      media.size ??= image.sizes[0]!;
      for (const a of image.assumptions) assumptions.add(a);
      if (image.assumptions.length === 0 && source.step) {
        const sizes = [...new Set(image.sizes.map((s) => `${s.width}×${s.height}`))].join(', ');
        workflow.push({ step: source.step, what: `a blank ${sizes} image in place of \`${name}\` (the size step ${source.step} produces)` });
      }
      continue;
    }
    const seconds = field?.file && readsMedia(source.path) ? source.items[0]?.seconds : undefined;
    if (seconds) {
      return {
        kind: 'unknown',
        reason: `the price twin of ${task} needs the \`${name}\` file itself, which ${from} has not produced yet (its length, ${formatSize(seconds)} s, is known)`,
        wouldKnow: `a local file for \`with.${name}\``,
      };
    }
    return {
      kind: 'unknown',
      reason: `the price depends on \`${name}\` (from ${from}, not produced yet), and there is no basis to estimate it`,
      wouldKnow: wouldKnow(source.task, name),
    };
  }
  const sized = [...assumptions];
  if (neutral.length > 0) assumptions.add(`the price does not depend on ${neutral.map((n) => `\`${n}\``).join(', ')} (quoted without the upstream value)`);
  const basis = sized.length === 0 && workflow.length > 0 ? { step: workflow[0]!.step, what: workflow.map((w) => w.what).join('; ') } : undefined;
  return { kind: 'estimate', placeholders, images, neutral, size, parts, media: { ...media, assumptions: sized }, assumptions: [...assumptions], ...(basis ? { workflow: basis } : {}) };
}

/** The sizes of the images an image field receives, when every one is known. */
function imageSizes(field: FieldSpec, source: PendingSource): { sizes: ImageSize[]; assumptions: string[] } | undefined {
  if (!field.file?.families.includes('image') || !readsMedia(source.path) || source.items.length === 0) return undefined;
  const sizes = source.items.map((f) => f?.size);
  if (sizes.some((s) => s === undefined)) return undefined;
  const list = field.type === 'file' ? sizes.slice(0, 1) : sizes;
  return { sizes: list as ImageSize[], assumptions: source.items.flatMap((f) => f?.assumptions ?? []) };
}

function formatSize(r: Range): string {
  const f = (v: number): string => (Number.isInteger(v) ? String(v) : String(Number(v.toFixed(3))));
  return r.low === r.high ? f(r.point) : `${f(r.point)} (${f(r.low)}–${f(r.high)})`;
}
