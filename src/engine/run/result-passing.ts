/**
 * Turns a finished job into the result its consumers need, by the task's result kind: text
 * is read (the inline `result` when the job status carries one, else a size-capped download),
 * JSON and vectors are also parsed, and media files are streamed from `result_url` into the
 * blob store, never held in memory. What nobody needs is not fetched at all.
 */
import { extname } from 'node:path';
import type { DeapiClient } from '../../client/index.js';
import type { JobStatus } from '../../client/index.js';
import { DeflowError } from '../../common/index.js';
import type { ResultKind, TaskSpec } from '../../service/index.js';
import type { BlobStore } from '../cache/index.js';
import type { NodeResult } from '../contracts/node-result.js';

const TEXT_KINDS: ReadonlySet<ResultKind> = new Set(['text', 'json', 'vectors']);

/** What the result is needed for. */
export interface ResultNeeds {
  /** A downstream step or `save` reads it. */
  readonly content: boolean;
}

export interface ResultContext {
  readonly client: Pick<DeapiClient, 'openResult'>;
  readonly blobs: BlobStore;
  readonly signal?: AbortSignal | undefined;
  /** The transfer must end within this many clock ms (what is left of the step's `timeout`). @default the client's deadline */
  readonly deadlineMs?: number | undefined;
  /** What that deadline is, for its error message. */
  readonly deadlineLabel?: string | undefined;
}

/** The result of a job whose status is `done`. */
export async function collectJobResult(
  context: ResultContext,
  task: TaskSpec,
  requestId: string,
  status: JobStatus,
  cost: number | null,
  needs: ResultNeeds,
): Promise<NodeResult> {
  const kind = task.resultKind;
  const base = { kind, requestId, url: status.resultUrl, cost };
  if (!needs.content) return base;
  if (TEXT_KINDS.has(kind)) {
    const text = status.result ?? (await readText(context, requireUrl(status, task, requestId)));
    return withParsed(base, text, task, requestId);
  }
  const url = requireUrl(status, task, requestId);
  const opened = await context.client.openResult(url, { signal: context.signal, kind, deadlineMs: context.deadlineMs, deadlineLabel: context.deadlineLabel });
  const blob = await context.blobs.putStream(opened.stream);
  const ext = extname(opened.filename).slice(1).toLowerCase();
  return { ...base, blob, ...(ext ? { ext } : {}), ...(opened.size !== undefined ? { size: opened.size } : {}) };
}

/** The answer of a synchronous task (prompt enhancement: `{ prompt, negative_prompt }`). */
export function syncResult(task: TaskSpec, answer: Readonly<Record<string, unknown>>): NodeResult {
  const prompt = typeof answer.prompt === 'string' ? answer.prompt : JSON.stringify(answer);
  return { kind: task.resultKind, requestId: null, url: null, cost: null, text: prompt, json: answer };
}

async function readText(context: ResultContext, url: string): Promise<string> {
  const opened = await context.client.openResult(url, { signal: context.signal, kind: 'text', deadlineMs: context.deadlineMs, deadlineLabel: context.deadlineLabel });
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function withParsed(base: Omit<NodeResult, 'text'>, text: string, task: TaskSpec, requestId: string): NodeResult {
  if (task.resultKind === 'text') return { ...base, text };
  try {
    return { ...base, text, json: JSON.parse(text) as unknown };
  } catch (error) {
    throw new DeflowError('E_RESULT_JSON', `job ${requestId} (${task.id}): expected a JSON result, got text that does not parse`, {
      cause: error,
      details: { requestId, task: task.id },
    });
  }
}

function requireUrl(status: JobStatus, task: TaskSpec, requestId: string): string {
  if (status.resultUrl !== null) return status.resultUrl;
  throw new DeflowError('E_RESULT_MISSING', `job ${requestId} (${task.id}): the job is done but its status has no result_url`, {
    details: { requestId, task: task.id },
  });
}
