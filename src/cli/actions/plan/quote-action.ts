/** What `deflow quote` does (quote.ts defines the command): validate, price every job, render, exit by the verdict. */
import { resolve } from 'node:path';
import { DeflowError, writeFileAtomically } from '../../../common/index.js';
import { type QuoteComparison, compareQuotes, readQuoteFile } from '../../../engine/index.js';
import { quoteRun } from '../../../engine/index.js';
import { openQuoteCache } from '../../../engine/index.js';
import { quoteInputFromGraph } from '../../../engine/index.js';
import { findHeldItems, leftOutWithDependents, openResultCacheLookup, previewResumeSeeds } from '../../../engine/index.js';
import { clientPriceSource } from '../../../engine/index.js';
import type { Quote } from '../../../engine/index.js';
import { resolveStateDir } from '../../../engine/index.js';
import { renderQuoteMarkdown } from '../../../report/index.js';
import { renderQuoteTable } from '../../../report/index.js';
import { formatAnnotations, formatErrors, formatWarnings } from '../../../workflow/index.js';
import { excludedLines } from './run-notes.js';
import { validateWorkflow } from '../../../workflow/index.js';
import type { CliIO } from '../../../common/index.js';
import { EXIT, exitCodeForQuote } from '../../../common/index.js';
import { QUOTE_FORMATS as FORMATS } from '../option-values.js';
import { readInputFlagsOrSay } from './input-flags.js';
import type { ServiceOptionValues } from '../../service-options.js';
import { withServiceSession } from '../../service-session.js';

export interface QuoteFlags extends ServiceOptionValues {
  readonly input: string[];
  readonly inputs?: string;
  readonly format: string;
  readonly maxCost?: string;
  readonly allowUnpriced?: boolean;
  readonly compareTo?: string;
  readonly output?: string;
  readonly stateDir?: string;
  readonly quoteTtl: string;
  /** commander's `--no-quote-cache`. */
  readonly quoteCache: boolean;
  readonly maxPriceRequests: string;
  readonly fitThreshold: string;
  /** commander's `--no-cache`: price items the result cache holds too. */
  readonly cache?: boolean;
  /** `--keep-going`: items with bad inputs are left out, as `run --keep-going` would. */
  readonly keepGoing?: boolean;
}

export async function runQuote(file: string, flags: QuoteFlags, io: CliIO): Promise<number> {
  const format = parseFormat(flags.format);
  const maxCost = flags.maxCost === undefined ? undefined : parseNumber('--max-cost', flags.maxCost, 0);
  const ttlMs = parseDuration(flags.quoteTtl);
  const maxPriceRequests = parseNumber('--max-price-requests', flags.maxPriceRequests, 0, true);
  const fitThreshold = parseNumber('--fit-threshold', flags.fitThreshold, 3, true);
  const inputs = await readInputFlagsOrSay(flags, io);
  if (inputs === undefined) return EXIT.usage;
  const previous = flags.compareTo === undefined ? undefined : await readQuoteFile(resolvePath(io, flags.compareTo));

  return withServiceSession(flags, io, 'api', async ({ client, emulated }) => {
    const validation = await validateWorkflow(file, { inputs, cwd: io.cwd, fetchModels: () => client.listModels(), keepGoing: flags.keepGoing === true ? true : 'workflow' });
    const problems = [...formatErrors(validation.errors), ...excludedLines(validation.excluded), ...formatWarnings(validation.warnings)];
    if (problems.length > 0) io.stderr.write(`${problems.join('\n')}\n`);
    if (io.env.GITHUB_ACTIONS === 'true' && validation.excluded.length > 0) io.stderr.write(`${formatAnnotations('warning', validation.excluded).join('\n')}\n`);
    if (!validation.ok || !validation.graph) return EXIT.usage;
    const graph = validation.graph;

    const stateDir = resolveStateDir({ workflowPath: file, stateDir: flags.stateDir, cwd: io.cwd });
    const cache = await openQuoteCache({ stateDir, scope: client.baseUrl, clock: client.clock, ttlMs, enabled: flags.quoteCache });
    const abort = new AbortController();
    void io.interrupted.then(() => abort.abort(new DeflowError('E_INTERRUPTED', 'interrupted: no quote was written')));
    const startedAt = new Date(client.clock.now()).toISOString();
    // What a run would not pay for: inputs left out (and what reads them), items the run it would resume
    // finished or paid for (never those only in flight), and results the result cache holds.
    const excluded = leftOutWithDependents(graph, validation.excluded.map((e) => graph.nodeIndex(e.item!.step, e.item!.index)));
    // An in-process emulator (--emulator) starts afresh: a run against it resumes nothing.
    const seeds = emulated ? [] : await previewResumeSeeds({ stateDir, graph });
    const lookup = openResultCacheLookup({ graph, stateDir, clock: client.clock });
    const run = { id: 'quote', started_at: startedAt };
    const held = await findHeldItems({ graph, ...(flags.cache === false ? { cache: null, blobs: lookup.blobs } : lookup), run, seeds, excluded, signal: abort.signal });
    const quote = await quoteRun(quoteInputFromGraph(graph, { runStartedAt: startedAt, held, excluded }), {
      prices: clientPriceSource(client),
      clock: client.clock,
      cache,
      maxCost,
      allowUnpriced: flags.allowUnpriced === true,
      maxPriceRequests,
      fitThreshold,
      signal: abort.signal,
    });
    const comparison: QuoteComparison | undefined = previous && flags.compareTo ? compareQuotes(previous, quote, flags.compareTo) : undefined;
    if (flags.output !== undefined) await writeFileAtomically(resolvePath(io, flags.output), `${JSON.stringify(quote, null, 2)}\n`, { makeFolder: true });
    io.stdout.write(render(quote, format, comparison));
    const refused = refusedItems(quote);
    if (refused.length > 0) {
      // A price twin's 422 refuses the parameters: the submission would be refused too, so no total stands.
      io.stderr.write(`${refused.join('\n')}\n`);
      return EXIT.usage;
    }
    return exitFor(quote, io);
  });
}

/** Items listed before "… and N more". */
const MAX_LISTED_REFUSED = 20;

/** One line per item the service refused to price (422), then one that says what it means. */
function refusedItems(quote: Quote): string[] {
  const lines: string[] = [];
  let count = 0;
  for (const step of quote.steps) {
    for (const item of step.quoted_items) {
      if (item.refused === undefined) continue;
      if (++count <= MAX_LISTED_REFUSED) lines.push(`deflow: ${step.id}[${item.index}] ${item.key}: the service refuses it (422): ${item.refused}`);
    }
  }
  if (count === 0) return [];
  if (count > MAX_LISTED_REFUSED) lines.push(`deflow: … and ${count - MAX_LISTED_REFUSED} more`);
  lines.push(`deflow: ${count} item(s) would be refused when submitted (the price twin answered 422): fix the workflow or its items; nothing was submitted`);
  return lines;
}

/** The exit code of a quote's verdict (common's exit-codes.ts); the cause on stderr when it is not 0. */
function exitFor(quote: Quote, io: CliIO): number {
  switch (quote.verdict) {
    case 'within':
    case 'no-budget':
      break;
    case 'unavailable':
      io.stderr.write(`deflow: cannot price the workflow: ${quote.prices_unavailable?.message ?? quote.verdict_reason}; no budget verdict was reached\n`);
      break;
    case 'over-budget':
    case 'unpriced':
    case 'over-balance':
      io.stderr.write(`deflow: ${quote.verdict}: ${quote.verdict_reason}\n`);
      break;
  }
  return exitCodeForQuote(quote.verdict);
}

function render(quote: Quote, format: (typeof FORMATS)[number], comparison: QuoteComparison | undefined): string {
  if (format === 'json') return `${JSON.stringify(comparison ? { ...quote, comparison } : quote, null, 2)}\n`;
  if (format === 'markdown') return renderQuoteMarkdown(quote, comparison);
  return renderQuoteTable(quote, comparison);
}

function resolvePath(io: CliIO, path: string): string {
  return resolve(io.cwd, path);
}

function usage(option: string, expected: string, got: string): DeflowError {
  return new DeflowError('E_USAGE_OPTION', `${option}: expected ${expected}, got ${JSON.stringify(got)}`, { details: { option } });
}

function parseFormat(value: string): (typeof FORMATS)[number] {
  const found = FORMATS.find((f) => f === value);
  if (!found) throw usage('--format', FORMATS.join(', '), value);
  return found;
}

function parseNumber(option: string, value: string, min: number, integer = false): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < min || (integer && !Number.isInteger(number))) {
    throw usage(option, `${integer ? 'a whole number' : 'a number'} ≥ ${min}`, value);
  }
  return number;
}

const UNITS: Readonly<Record<string, number>> = { s: 1e3, m: 60e3, h: 3600e3, d: 86_400e3 };

/** `90s`, `30m`, `6h`, `2d`, or a number of seconds. */
function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/.exec(value.trim());
  if (!match) throw usage('--quote-ttl', 'a duration such as 30m, 6h or 2d', value);
  return Number(match[1]) * (UNITS[match[2] || 's'] ?? 1e3);
}
