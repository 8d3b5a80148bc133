/**
 * What a run holds against its budget before each submission, per job:
 *
 * - a price the quote knows exactly (`exact`, `derived`) is held as it is; a `fitted` one at the
 *   high end of its range;
 * - an `estimated` price is re-priced once the job's inputs exist (its upstream item is done,
 *   so a speech job knows its transcript's length, a transcription its audio's seconds): from
 *   the line its class's quotes lie on, at the measured size. The reservation tightens as the
 *   run learns; without a line or a measurable input, the estimate's high end is held;
 * - an unpriced job is priced by its twin just before it is sent (its inputs exist now); when
 *   the twin cannot answer, the highest price seen so far for its step is held, else the
 *   highest price the quote gave the step; with none of these it is not sent (fail closed).
 */
import type { RequestFields } from '../../../client/index.js';
import { toMicrosUp, toUsd } from '../../../common/index.js';
import type { GraphStep, JobGraph } from '../../../workflow/index.js';
import { DEFAULT_FIT_TOLERANCE, fitLine, predictPrice, readMediaDuration, sizeVariableOf, withinTolerance } from '../../quote/index.js';
import type { Quote, QuotedClass } from '../../quote/index.js';
import type { SizeVariable } from '../../quote/index.js';

/** An amount to hold, and how it was arrived at (for the budget-stop message). */
export interface Reservation {
  readonly amount: number;
  readonly how: string;
}

/** A class's price as a line in its size variable, checked on its own points. */
interface ClassLine {
  readonly variable: SizeVariable;
  readonly slope: number;
  readonly intercept: number;
}

const METHOD = { none: 0, exact: 1, fitted: 2, estimated: 3 } as const;
/** How close a class's points must lie to their line (relative, or one micro-dollar). */
const TOLERANCE = DEFAULT_FIT_TOLERANCE;
const margin = (price: number): number => Math.max(TOLERANCE.relative * Math.abs(price), TOLERANCE.absolute);

export class RunPricer {
  /** Quoted point price per node (USD); NaN when not quoted. */
  readonly point: Float64Array;
  /** The most a quoted node can cost (USD); NaN when not quoted. */
  readonly high: Float64Array;
  private readonly method: Uint8Array;
  private readonly lineOf: Int32Array;
  private readonly lines: ClassLine[] = [];
  private readonly highestSeen = new Map<string, number>();
  private readonly highestQuoted = new Map<string, number>();

  constructor(readonly graph: JobGraph) {
    const n = graph.nodeCount;
    this.point = new Float64Array(n).fill(Number.NaN);
    this.high = new Float64Array(n).fill(Number.NaN);
    this.method = new Uint8Array(n);
    this.lineOf = new Int32Array(n).fill(-1);
  }

  /** Takes each node's quoted price, its high end, and its class's line. */
  applyQuote(quote: Quote): void {
    for (const quoted of quote.steps) {
      let step: GraphStep;
      try {
        step = this.graph.step(quoted.id);
      } catch {
        continue;
      }
      const lines = new Map<string, number>();
      for (const cls of quoted.classes) {
        const line = classLine(step, cls);
        if (line) lines.set(cls.id, this.lines.push(line) - 1);
      }
      for (const item of quoted.quoted_items) {
        if (item.index >= step.itemCount) continue;
        const id = step.offset + item.index;
        if (item.price === null) continue;
        this.point[id] = item.price;
        this.high[id] = item.method === 'exact' || item.method === 'derived' ? item.price : (item.high ?? item.price);
        this.method[id] = item.method === 'exact' || item.method === 'derived' ? METHOD.exact : item.method === 'fitted' ? METHOD.fitted : METHOD.estimated;
        if (item.class !== undefined) this.lineOf[id] = lines.get(item.class) ?? -1;
        this.highestQuoted.set(step.id, Math.max(this.highestQuoted.get(step.id) ?? 0, this.high[id]));
      }
    }
  }

  /** The quote's price of node `id`, or null. */
  quoted(id: number): number | null {
    const value = this.point[id]!;
    return Number.isNaN(value) ? null : value;
  }

  /** Whether the quote priced node `id`. */
  priced(id: number): boolean {
    return this.method[id] !== METHOD.none;
  }

  /**
   * What to hold for node `id` from what is known now (its inputs resolved into `fields`);
   * undefined when the job is unpriced (the caller asks its twin, then {@link fallback}).
   */
  async reservation(id: number, fields: RequestFields): Promise<Reservation | undefined> {
    switch (this.method[id]) {
      case METHOD.exact:
        return { amount: this.point[id]!, how: 'its quoted price' };
      case METHOD.fitted:
        return { amount: this.high[id]!, how: 'the high end of its fitted price' };
      case METHOD.estimated: {
        const line = this.lines[this.lineOf[id]!];
        const x = line ? await measure(line.variable, fields) : undefined;
        if (line && x !== undefined) {
          const price = Math.max(0, line.slope * x + line.intercept);
          return { amount: roundUp(price + margin(price)), how: `priced from its input (${line.variable.name}=${Number(x.toFixed(3))})` };
        }
        return { amount: this.high[id]!, how: 'the high end of its estimate' };
      }
      default:
        return undefined;
    }
  }

  /** For an unpriced job whose twin could not answer: the highest price seen for its step, else quoted for it. */
  fallback(stepId: string): Reservation | undefined {
    const seen = this.highestSeen.get(stepId);
    if (seen !== undefined) return { amount: seen, how: `the highest price seen so far for step ${stepId}` };
    const quoted = this.highestQuoted.get(stepId);
    if (quoted !== undefined) return { amount: quoted, how: `the highest price quoted for step ${stepId}` };
    return undefined;
  }

  /** A job of `stepId` was charged `cost`. */
  observe(stepId: string, cost: number): void {
    if (cost > (this.highestSeen.get(stepId) ?? -1)) this.highestSeen.set(stepId, cost);
  }
}

/** The class's line: the fitted one, or one through three or more answered points that all lie on it. */
function classLine(step: GraphStep, cls: QuotedClass): ClassLine | undefined {
  const variable = sizeVariableOf(step.task.id);
  if (!variable || variable.name !== cls.variable) return undefined;
  if (cls.line) return { variable, slope: cls.line.slope, intercept: cls.line.intercept };
  const points = cls.points ?? [];
  if (new Set(points.map((p) => p.x)).size < 3) return undefined;
  const line = fitLine(points);
  const off = points.some((p) => !withinTolerance(predictPrice(line, p.x), p.price, TOLERANCE));
  return off ? undefined : { variable, slope: line.slope, intercept: line.intercept };
}

/** The job's size in its class's variable, measured from its resolved fields (undefined when it cannot be). */
async function measure(variable: SizeVariable, fields: RequestFields): Promise<number | undefined> {
  const value = variable.replaces ? fields[variable.replaces] : fields[variable.name];
  if (variable.measure === 'characters') {
    if (typeof value === 'string') return [...value].length;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return (value).reduce((s, v) => s + [...v].length, 0);
    return undefined;
  }
  if (variable.measure === 'media-seconds') {
    const path = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { path?: unknown }).path : undefined;
    return typeof path === 'string' ? readMediaDuration(path) : undefined;
  }
  return typeof value === 'number' ? value : undefined;
}

/** Up to the next micro-dollar, so a held amount never falls short by rounding. */
function roundUp(usd: number): number {
  return toUsd(toMicrosUp(usd));
}
