import { DeflowError } from '../../common/index.js';

/** A report file (`--report`, `--junit`, the GitHub step summary) could not be written. */
export class ReportWriteError extends DeflowError {
  override name = 'ReportWriteError';

  constructor(path: string, what: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('E_REPORT_WRITE', `${path}: could not write the ${what}: ${reason}`, { cause, details: { path, what } });
  }
}
