/**
 * An event's error as the files deflow writes spell it (journal records, report.json): the
 * snake_case names, and a field the error does not have left out.
 */
import type { ErrorCode } from '../../common/index.js';
import type { JobErrorCode } from '../../service/index.js';
import type { EventError } from './events.js';

// A type, not an interface: it is assignable to the journal's open record of an error.
export type ErrorRecord = {
  readonly code: ErrorCode;
  readonly message: string;
  readonly job_error_code?: JobErrorCode;
  readonly reason?: string;
};

/** `error` as written in a journal record or a report item. */
export function errorRecord(error: EventError): ErrorRecord {
  return {
    code: error.code,
    message: error.message,
    ...(error.jobErrorCode === undefined ? {} : { job_error_code: error.jobErrorCode }),
    ...(error.reason === undefined ? {} : { reason: error.reason }),
  };
}
