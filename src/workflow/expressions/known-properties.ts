import type { ResultKind } from '../../service/index.js';

/** What `steps.<id>` offers: the job's id, its result URL, its text or parsed JSON, the saved file, the cost. */
export const STEP_RESULT_FIELDS = ['request_id', 'result_url', 'text', 'json', 'path', 'cost'] as const;

/** What a `gather: partial` step sees beside the results: the items of the gathered step that did not succeed. */
export const GATHER_MISSING = 'missing';

/** What `run` offers. */
export const RUN_FIELDS = ['id', 'started_at'] as const;

/** Result kinds whose content can be read as text (`steps.<id>.text`). */
export const TEXT_KINDS: readonly ResultKind[] = ['text', 'json'];

/** Result kinds whose content can be read as parsed JSON (`steps.<id>.json`). */
export const JSON_KINDS: readonly ResultKind[] = ['json', 'vectors'];
