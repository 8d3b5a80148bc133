export type { DeferredPool, EventError, NodeRef, RunEvent, RunEventSink, RunStatus, SkipKind } from './contracts/events.js';
export { runOpened } from './run-durably.js';
export type { RunOutcome } from './run-workflow.js';
export { digestWorkflow, RESUMABLE_STATUSES, STATE_DIR_NAME, assertRunId, attributeSpend, chargedJobs, listRuns, openDurableRun, previewResumeSeeds, createRunDir, readRunMeta, writeRunMeta, readInvocations, readJournal, readRunState, replayRunState, resolveStateDir, runPaths, stateLayout, summariseProgress } from './journal/index.js';
export type { DurableRun, GcResult, InvocationEntry, RunOptionsRecord, RunProgress, RunSummary } from './journal/index.js';
export { collectGarbage } from './journal/index.js';
export { DEFAULT_FIT_THRESHOLD, DEFAULT_MAX_PRICE_REQUESTS, clientPriceSource, compareQuotes, openQuoteCache, quoteInputFromGraph, quoteRun, readQuoteFile } from './quote/index.js';
export type { BudgetVerdict, PriceMethod, Quote, QuoteComparison, QuoteDelta, QuoteTotal, QuotedItem, QuotedStep } from './quote/index.js';
export type { BudgetOutcome, EarlierInvocation } from './contracts/events.js';
export { errorRecord } from './contracts/error-record.js';
export type { ErrorRecord } from './contracts/error-record.js';
export { GatedGovernor } from './run/index.js';
export { findHeldItems, leftOutWithDependents, openResultCacheLookup } from './run/index.js';
export type { KnownBeforeQuote } from './run-workflow.js';
// The queue's types and values are in distributed.ts: their declarations name bullmq's and
// ioredis' types, which this face (and the library's main entry) must not pull in.
export { keepDeliveries } from './keep-deliveries.js';
export type { DeliveryKeeper, KeepDeliveriesOptions } from './keep-deliveries.js';
