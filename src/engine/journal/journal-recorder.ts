/**
 * The run engine's state recorder, backed by the run journal. The two records that guard
 * money are awaited by the engine, and `append` resolves only once its record is fsynced:
 * the intent before the submission POST goes out, the request id before the job is polled.
 * Every later transition is journalled too, so a resumed run knows what is done (with the
 * result its downstream steps read), what is in flight (to poll, not resubmit) and what is
 * unknown.
 */
import { errorRecord } from '../contracts/error-record.js';
import type { EventError, RunStatus } from '../contracts/events.js';
import type { Journal } from './journal.js';
import type { JournalNodeIds } from './journal-node-ids.js';
import type { JournalResult } from './journal-records.js';
import type { NodeResult } from '../run/index.js';
import type { RecordedDone, RecordedNode, StateRecorder } from '../run/index.js';

/** Reason of the `skipped` record of a withdrawn submission: the node is run again on resume. */
export const WITHDRAWN_PREFIX = 'withdrawn: ';

/** What a done record keeps of a result: enough for downstream steps and `save` on resume. */
export interface JournalledResult extends JournalResult {
  /** Extension of the blob (`png`), for the upload name when a later step sends it on. */
  readonly ext?: string;
  /** Bytes of the blob. */
  readonly size?: number;
}

export class JournalRecorder implements StateRecorder {
  /** Last journalled job status per node in flight: repeated polls of one status add nothing. */
  private readonly lastStatus = new Map<number, string>();

  constructor(
    private readonly journal: Journal,
    private readonly ids: JournalNodeIds,
  ) {}

  async intent(node: RecordedNode, attempt: number, paramsDigest: string, cacheKey: string | null): Promise<void> {
    await this.journal.append({ t: 'intent', node: this.name(node), step: node.step, index: node.index, attempt, params_digest: paramsDigest, cache_key: cacheKey });
  }

  async withdrawn(node: RecordedNode, _attempt: number, reason: string): Promise<void> {
    // Refused before a job existed: nothing is ambiguous, and the next run submits it again.
    await this.journal.append({ t: 'skipped', node: this.name(node), reason: `${WITHDRAWN_PREFIX}${reason}` });
  }

  async submitted(node: RecordedNode, attempt: number, requestId: string, adopted = false): Promise<void> {
    this.lastStatus.delete(node.id);
    await this.journal.append({ t: 'submitted', node: this.name(node), attempt, request_id: requestId, ...(adopted ? { adopted: true as const } : {}) });
  }

  async progress(node: RecordedNode, status: string, progress: number | null): Promise<void> {
    if (this.lastStatus.get(node.id) === status) return;
    this.lastStatus.set(node.id, status);
    await this.journal.append({ t: 'status', node: this.name(node), status, progress });
  }

  async paid(node: RecordedNode, requestId: string, resultUrl: string | null, cost: number | null): Promise<void> {
    this.lastStatus.delete(node.id);
    await this.journal.append({ t: 'paid', node: this.name(node), request_id: requestId, result_url: resultUrl, cost });
  }

  async unsaved(node: RecordedNode, requestId: string, error: EventError): Promise<void> {
    await this.journal.append({ t: 'unsaved', node: this.name(node), request_id: requestId, error: errorRecord(error) });
  }

  async done(node: RecordedNode, done: RecordedDone): Promise<void> {
    this.lastStatus.delete(node.id);
    const name = this.name(node);
    const writes: Promise<void>[] = [];
    // A cache hit has no intent; `cached` says where its result came from (status counts it).
    if (done.cached && done.cacheKey !== null) {
      writes.push(this.journal.append({ t: 'cached', node: name, cache_key: done.cacheKey }));
    }
    writes.push(this.journal.append({ t: 'done', node: name, request_id: done.requestId, cost: done.cost, result: toJournalResult(done.result), outputs: done.outputs }));
    await Promise.all(writes);
  }

  async retrying(node: RecordedNode, _attempt: number, error: EventError): Promise<void> {
    this.lastStatus.delete(node.id);
    // Failed and retryable: should the run die before the next intent, resume submits it again.
    await this.journal.append({ t: 'failed', node: this.name(node), error: errorRecord(error), retryable: true });
  }

  async failed(node: RecordedNode, error: EventError, retryable: boolean): Promise<void> {
    this.lastStatus.delete(node.id);
    await this.journal.append({ t: 'failed', node: this.name(node), error: errorRecord(error), retryable });
  }

  async skipped(node: RecordedNode, reason: string): Promise<void> {
    await this.journal.append({ t: 'skipped', node: this.name(node), reason });
  }

  async deferred(node: RecordedNode, pool: string, resetAt: number | null): Promise<void> {
    this.lastStatus.delete(node.id);
    await this.journal.append({ t: 'deferred', node: this.name(node), pool, reset_at: resetAt });
  }

  async unknown(node: RecordedNode, reason: string): Promise<void> {
    this.lastStatus.delete(node.id);
    await this.journal.append({ t: 'unknown', node: this.name(node), reason });
  }

  async timedOut(node: RecordedNode, requestId: string, error: EventError): Promise<void> {
    this.lastStatus.delete(node.id);
    await this.journal.append({ t: 'timed-out', node: this.name(node), request_id: requestId, error: errorRecord(error) });
  }

  async finished(status: RunStatus): Promise<void> {
    await this.journal.append({ t: 'end', status });
  }

  /** The journal name of `node` (`<step>/<item key>`). */
  name(node: RecordedNode): string {
    return this.ids.nameOf(node.step, node.index, node.key);
  }
}

/** The fields of a result worth keeping (never the cost, which the record holds already). */
export function toJournalResult(result: NodeResult): JournalledResult {
  return {
    ...(result.url === null ? {} : { url: result.url }),
    ...(result.text === undefined ? {} : { text: result.text }),
    ...(result.json === undefined ? {} : { json: result.json }),
    ...(result.blob === undefined ? {} : { blob: result.blob }),
    ...(result.ext === undefined ? {} : { ext: result.ext }),
    ...(result.size === undefined ? {} : { size: result.size }),
    ...(result.path === undefined || result.path === null ? {} : { path: result.path }),
  };
}

