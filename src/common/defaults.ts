/**
 * Names and defaults that command-line help shows before anything heavy is loaded: the CLI's
 * command definitions read them from here, and the layers that own them re-export them.
 */

/** The environment variable that holds the key. */
export const API_KEY_ENV = 'DEAPI_API_KEY';

/** The state folder's name (beside the workflow by default). */
export const STATE_DIR_NAME = '.deflow';

/** Most price requests a quote sends; beyond it items are unknown. */
export const DEFAULT_MAX_PRICE_REQUESTS = 200;

/** Distinct sizes in a quote class beyond which prices are fitted. */
export const DEFAULT_FIT_THRESHOLD = 6;
