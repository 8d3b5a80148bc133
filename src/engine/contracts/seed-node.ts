import type { EventError } from './events.js';
import type { NodeResult } from './node-result.js';

/** A node's state carried over from an earlier run (resume). */
export type SeedNode =
  | {
      readonly state: 'done';
      readonly step: string;
      readonly k: number;
      readonly result: NodeResult;
      readonly outputs: readonly string[];
      /** Clock ms when it was done (its cost was charged then). */
      readonly doneAt?: number;
      /** Its job was adopted: its submission's answer was lost and a webhook delivery named the item. */
      readonly adopted?: boolean;
    }
  | {
      readonly state: 'submitted';
      readonly step: string;
      readonly k: number;
      readonly requestId: string;
      readonly attempt: number;
      /** The job's cache key, so that its result is stored once it is done. */
      readonly cacheKey?: string | null;
      /** Done and paid for in an earlier session (USD charged then), its result not saved: fetched again, never resubmitted. */
      readonly paid?: { readonly cost: number | null };
      /** Clock ms when the earlier session journalled the job as accepted (its first poll is due from then). */
      readonly submittedAt?: number | null;
      /** Its job was adopted: its submission's answer was lost and a webhook delivery named the item. */
      readonly adopted?: boolean;
    }
  /** Paid in an earlier session, its result lost for good: reported as such. */
  | { readonly state: 'unsaved'; readonly step: string; readonly k: number; readonly requestId: string; readonly error: EventError }
  /**
   * `attempt`: the attempt of this run whose answer was lost, or `from`: the run it was carried
   * over from (a delivery naming it adopts the job).
   */
  | { readonly state: 'unknown'; readonly step: string; readonly k: number; readonly reason: string; readonly attempt?: number; readonly from?: string }
  /** Left out of the run: its inputs failed the load-time checks (`--keep-going`). */
  | { readonly state: 'invalid'; readonly step: string; readonly k: number; readonly reason: string }
  | { readonly state: 'failed'; readonly step: string; readonly k: number; readonly error: EventError };
