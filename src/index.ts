/**
 * deflow's library surface. Everything not exported here is internal.
 */
export { type Clock, createVirtualClock, systemClock, type VirtualClockOptions } from './common/clock.js';
export { DeflowError, exitCodeFor, isDeflowError } from './common/deflow-error.js';
export { type ErrorCode, isErrorCode } from './common/error-codes.js';
export {
  type BudgetVerdict,
  ERROR_EXIT_CODES,
  EXIT,
  type ExitCode,
  exitCodeForQuote,
  exitCodeForRun,
  QUOTE_VERDICT_EXIT,
  RUN_STATUS_EXIT,
} from './common/exit-codes.js';
export {
  type EmulatorConfig,
  type EmulatorConfigInput,
  type EmulatorJobSummary,
  type EmulatorStats,
  type RunningEmulator,
  type StartEmulatorOptions,
  startEmulator,
} from './emulator/start-emulator.js';
export type { RunEvent, RunEventSink, RunStatus } from './engine/index.js';
export { type RunWorkflowOptions, runWorkflow } from './engine/run-workflow.js';
export { type DurableOutcome, type RunDurablyOptions, runDurably } from './engine/run-durably.js';
export { type DurableRun, type OpenDurableRunOptions, openDurableRun } from './engine/journal/durable-run.js';
export { type PriceSource, type QuoteOptions, quoteRun } from './engine/quote/quote.js';
export { clientPriceSource } from './engine/quote/quote-price-source.js';
export { quoteInputFromGraph } from './engine/quote/quote-input-from-graph.js';
export type { PriceMethod, Quote, QuotedItem, QuotedStep, QuoteTotal } from './engine/quote/quote-types.js';
export {
  expandGraph,
  JobGraph,
  loadWorkflow,
  resolveSavePath,
  type ValidateOptions,
  type ValidationResult,
  validateWorkflow,
  WorkflowError,
  WorkflowInvalidError,
  type Workflow,
} from './workflow/index.js';
export { type CallOptions, DeapiClient, type SubmitOptions, type SubmitResult } from './client/deapi-client.js';
export { DEFAULT_BASE_URL, type DeapiClientOptions } from './client/client-options.js';
export { RateGovernor, type RateGovernorOptions } from './client/rate-governor.js';
export type { AcquireRequest, GovernorEvents, GovernorPermit } from './client/governor-types.js';
export { DEFAULT_RETRY_OPTIONS, type RetryOptions } from './client/retry-policy.js';
export type { RateLimitSnapshot } from './client/rate-limit-snapshot.js';
export { isTerminalStatus, type JobFailure, type JobStatus } from './client/tolerant-read.js';
export type { FieldValue, FileRef, RequestFields, StreamRef } from './client/field-values.js';
export type { ApiKeyInfo, Payment, PaymentPage } from './client/account-types.js';
export type { OpenedResult, TransferOptions } from './client/transfers.js';
export { API_KEY_ENV, readApiKey } from './client/api-key.js';
export { createRedactor, type Redactor } from './common/redact.js';
export { ApiError, type ApiErrorInit } from './client/errors/api-error.js';
export { AuthError } from './client/errors/auth-error.js';
export { PermissionError } from './client/errors/permission-error.js';
export { ValidationError } from './client/errors/validation-error.js';
export { InsufficientBalanceError } from './client/errors/insufficient-balance-error.js';
export { KeyLimitError } from './client/errors/key-limit-error.js';
export { RateLimitError } from './client/errors/rate-limit-error.js';
export { DailyLimitError } from './client/errors/daily-limit-error.js';
export { NotFoundError } from './client/errors/not-found-error.js';
export { ServerError } from './client/errors/server-error.js';
export { UnexpectedResponseError } from './client/errors/unexpected-response-error.js';
export { NetworkError } from './client/errors/network-error.js';
export { TransferError } from './client/errors/transfer-error.js';
export { UnsafeUrlError } from './client/errors/unsafe-url-error.js';
export { RunReportBuilder } from './report/files/run-report.js';
export {
  ENDPOINTS,
  type Endpoint,
  ERROR_CODES,
  findTask,
  getTask,
  MODEL_CATALOGUE,
  type ModelInfo,
  RATE_LIMIT_HEADERS,
  TASK_IDS,
  TASKS,
  type TaskId,
  type TaskSpec,
} from './service/index.js';
