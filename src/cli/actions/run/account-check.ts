/**
 * The account check every `deflow run` that is not `--offline` makes before it starts: one
 * authenticated call (the balance), so a broken key fails the run (exit 3, `E_AUTH`) even when
 * every item comes from the result cache, and the balance the quote compares with the high end
 * of what the run is about to pay (run-workflow.ts refuses to start below it).
 */
import { DeflowError, isDeflowError } from '../../../common/index.js';
import type { DeapiClient } from '../../../client/index.js';

/** Codes of a key the service refuses: unknown, expired, revoked, or not allowed from here. */
const REFUSED_KEY = new Set(['E_API_AUTH', 'E_API_PERMISSION']);

/** Reads the balance with the run's key; a refused key is `E_AUTH` (exit 3). */
export async function checkAccount(client: Pick<DeapiClient, 'balance' | 'redact'>): Promise<number> {
  try {
    return (await client.balance()).balance;
  } catch (error) {
    if (isDeflowError(error) && REFUSED_KEY.has(error.code)) {
      throw new DeflowError('E_AUTH', `E_AUTH: the service refused the API key (${client.redact(error.message)}); nothing was submitted`, {
        cause: error,
        details: error.details,
      });
    }
    throw error;
  }
}
