/**
 * `deflow quote WORKFLOW`: the cost of every job the workflow would submit, before anything is
 * spent (price twins only; nothing is submitted). Exit 0 within budget; 4 when the high end is
 * over `--max-cost` / `budget.max_cost`, when items have no price under a budget (unless
 * `--allow-unpriced`), or when the point is over the balance; 1 when prices could not be
 * obtained (the service unreachable, the key refused, the price pool exhausted), naming the
 * cause; 2 for an invalid workflow or option. The action lives in actions/plan/quote-action.ts, loaded when
 * the command runs.
 */
import type { Command } from 'commander';
import { DEFAULT_FIT_THRESHOLD, DEFAULT_MAX_PRICE_REQUESTS } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { QuoteFlags } from '../actions/plan/quote-action.js';
import { addServiceOptions } from '../service-options.js';
import { addWorkflowInputOptions } from '../workflow-input-options.js';
import { QUOTE_FORMATS } from '../actions/option-values.js';

/** Adds `deflow quote`. */
export function registerQuoteCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  const command = addWorkflowInputOptions(
    program
      .command('quote')
      .description('price every job of a workflow before running it (price twins only; nothing is submitted)')
      .argument('<workflow>', 'workflow file (YAML)'),
  )
    .option('--format <format>', `output: ${QUOTE_FORMATS.join(', ')}`, 'table')
    .option('--max-cost <usd>', "budget in USD (overrides the workflow's budget.max_cost); exit 4 when the quote's high end is above it or items have no price")
    .option('--allow-unpriced', 'items with no price do not fail the budget (a run holds each against the cap just before sending it)')
    .option('--compare-to <file>', 'show the change against an earlier `--format json` quote')
    .option('--output <file>', 'also write the JSON quote to this file')
    .option('--state-dir <dir>', 'state folder holding the quote cache (default: .deflow beside the workflow)')
    .option('--quote-ttl <duration>', 'reuse cached price answers younger than this (e.g. 30m, 6h, 2d)', '24h')
    .option('--no-quote-cache', 'neither read nor write the quote cache')
    .option('--no-cache', 'price every item, even those whose result is in the result cache (a run would not pay for them)')
    .option('--keep-going', 'leave out items whose inputs fail the load-time checks (each listed; not priced, nothing uploaded), as `run --keep-going` does (as defaults.keep_going: true)')
    .option('--max-price-requests <n>', 'most price requests to send; beyond it items are unknown', String(DEFAULT_MAX_PRICE_REQUESTS))
    .option('--fit-threshold <n>', 'distinct sizes in a class beyond which prices are fitted', String(DEFAULT_FIT_THRESHOLD));
  addServiceOptions(command).action(wrap(async (file: string, flags: QuoteFlags) => (await import('../actions/plan/quote-action.js')).runQuote(file, flags, io)));
}
