/**
 * A finished node's result as the engine keeps it between steps: small fields only. Media
 * bytes live in the blob store (`blob` is their sha256), never in memory.
 */
import type { ResultKind } from '../../service/index.js';
import type { StepResult } from '../../workflow/index.js';

export interface NodeResult {
  readonly kind: ResultKind;
  readonly requestId: string | null;
  /** The job's `result_url` (null for synchronous tasks and cached results). */
  readonly url: string | null;
  /** Text of text and JSON results (when a consumer or `save` needs it). */
  readonly text?: string;
  /** Parsed JSON of JSON and vector results. */
  readonly json?: unknown;
  /** sha256 of the downloaded bytes in the blob store. */
  readonly blob?: string;
  /** File extension of the blob, without the dot. */
  readonly ext?: string;
  readonly size?: number;
  /** Absolute path of the first saved output, when the step has `save`. */
  readonly path?: string | null;
  /** USD charged; 0 for a cached result; null when unknown. */
  readonly cost: number | null;
}

/** What `steps.<id>.*` expressions see of a result. */
export function toStepResult(result: NodeResult): StepResult {
  return {
    request_id: result.requestId,
    result_url: result.url,
    text: result.text ?? null,
    json: result.json ?? null,
    path: result.path ?? null,
    cost: result.cost,
  };
}
