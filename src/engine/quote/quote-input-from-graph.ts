/**
 * Adapts an expanded workflow (JobGraph) to what the quote reads: per step, each node's `with`
 * rendered as far as it can be before the run (inputs and the item are known; a field that
 * reads `steps.*` is pending), file fields as `{ path }`, and the upstream step feeding them.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { findField } from '../../service/index.js';
import type { FieldSpec } from '../../service/index.js';
import { evaluateCondition, type ExpressionScope, prepareScope } from '../../workflow/index.js';
import { contextsOf, staticValue } from '../../workflow/index.js';
import type { GraphStep, JobGraph } from '../../workflow/index.js';
import { referencedStepId, stepReferences } from '../../workflow/index.js';
import { coerceFieldValue } from '../../workflow/index.js';
import type { ContextName } from '../../workflow/index.js';
import type { PendingRead, QuoteInput, QuoteItem, QuoteStep } from './quote-input.js';
import type { HeldItem } from './quote-types.js';

const KNOWN_BEFORE_RUN: ReadonlySet<ContextName> = new Set(['inputs', 'item', 'run']);

export interface QuoteInputOptions {
  readonly runStartedAt?: string;
  /** Items the run already has, by graph index (held-items.ts): priced at $0 and shown apart. */
  readonly held?: ReadonlyMap<number, HeldItem>;
  /** Items left out at validation (`--keep-going`), by graph index: not quoted at all. */
  readonly excluded?: ReadonlySet<number>;
}

/** The quote's view of `graph`; `maxCost` from the workflow's `budget.max_cost`. */
export function quoteInputFromGraph(graph: JobGraph, options: QuoteInputOptions = {}): QuoteInput {
  const run = { id: 'quote', started_at: options.runStartedAt ?? new Date().toISOString() };
  return {
    workflow: graph.workflow.displayFile,
    maxCost: graph.workflow.budget.maxCost ?? null,
    steps: graph.steps.map((step) => quoteStep(graph, step, run, options)),
  };
}

function quoteStep(graph: JobGraph, step: GraphStep, run: ExpressionScope['run'] & {}, options: QuoteInputOptions): QuoteStep {
  const pendingFields = new Map<string, string | undefined>();
  for (const [name, value] of step.def.with) {
    const contexts = contextsOf(value);
    if (contexts === undefined || contexts.has('steps')) pendingFields.set(name, undefined);
  }
  const reads: Record<string, PendingRead> = {};
  for (const { reference, where } of stepReferences(step.def)) {
    if (where.kind !== 'with' || !pendingFields.has(where.field)) continue;
    const from = referencedStepId(graph.workflow, reference);
    pendingFields.set(where.field, pendingFields.get(where.field) ?? from);
    const kind = from === undefined ? undefined : step.upstream.find((e) => e.from === from)?.kind;
    if (from !== undefined && kind !== undefined && !(where.field in reads)) reads[where.field] = { step: from, path: reference.path.slice(1), edge: kind };
  }
  const upstream = [...pendingFields.values()].find((id) => id !== undefined) ?? null;
  const edge = upstream ? step.upstream.find((e) => e.from === upstream) : undefined;
  const upstreamCount = upstream ? graph.step(upstream).itemCount : 0;
  return {
    id: step.id,
    task: step.task.id,
    items: step.itemCount,
    upstream,
    reads,
    async *iterate() {
      for (let k = 0; k < step.itemCount; k++) {
        if (options.excluded?.has(step.offset + k)) continue;
        const found = nodeItem(graph, step, k, run, pendingFields);
        if (!found) continue;
        const held = options.held?.get(step.offset + k);
        const item = held ? { ...found, held } : found;
        const upstreamIndexes = edge?.kind === 'all' ? Array.from({ length: upstreamCount }, (_, j) => j) : edge?.kind === 'one' ? [0] : undefined;
        yield upstreamIndexes ? { ...item, upstreamIndexes } : item;
      }
    },
  };
}

/** Node k's fields; undefined when its `if` is known to be false (it would not be submitted). */
function nodeItem(
  graph: JobGraph,
  step: GraphStep,
  k: number,
  run: ExpressionScope['run'] & {},
  pendingFields: ReadonlyMap<string, string | undefined>,
): QuoteItem | undefined {
  const context = step.item(k);
  const scope = prepareScope({ inputs: graph.inputs, item: context ?? null, steps: {}, run });
  const condition = step.def.if;
  if (condition?.kind === 'literal' && !condition.value) return undefined;
  if (condition?.kind === 'expression' && condition.expression.references.every((r) => KNOWN_BEFORE_RUN.has(r.context))) {
    if (!evaluateCondition(condition, scope)) return undefined;
  }
  const fields: Record<string, unknown> = {};
  const pending: string[] = [];
  for (const [name, value] of step.def.with) {
    if (pendingFields.has(name)) {
      pending.push(name);
      continue;
    }
    const known = staticValue(value, KNOWN_BEFORE_RUN, scope);
    if (known.kind !== 'value' || known.value === null || known.value === undefined) continue;
    const spec = findField(step.task, name);
    fields[name] = spec ? asFieldValue(spec, coerceFieldValue(spec, known.value), graph.workflow.dir) : known.value;
  }
  for (const fill of step.filled) if (!(fill.field in fields) && !pending.includes(fill.field)) fields[fill.field] = fill.value;
  return { index: k, key: itemKey(context?.path, context?.value, k, step), fields, pending };
}

/** File fields become `{ path }`, resolved against the workflow's folder. */
function asFieldValue(field: FieldSpec, value: unknown, dir: string): unknown {
  if (field.type === 'file' && typeof value === 'string') return { path: resolve(dir, value) };
  if (field.type === 'files' && Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? { path: resolve(dir, v) } : v));
  return value;
}

function itemKey(path: string | null | undefined, value: unknown, k: number, step: GraphStep): string {
  if (typeof path === 'string') return path;
  if (!step.fansOut) return step.id;
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? k);
  return text.length <= 64 ? text : createHash('sha256').update(text).digest('hex').slice(0, 16);
}
