/**
 * A node's request, ready for the client: the workflow layer renders and checks the values
 * (renderRequest), and this turns file fields into file references: a local path as it is,
 * an upstream job's `result_url` as that result's file in the blob store, so uploads always
 * stream from disk.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { FieldValue, FileRef, RequestFields } from '../../client/index.js';
import { DeflowError } from '../../common/index.js';
import { type FieldSpec, TRANSCRIBE_AUDIO_FILE, TRANSCRIBE_SOURCE_FILE } from '../../service/index.js';
import type { GraphStep, JobGraph, PreparedScope } from '../../workflow/index.js';
import { renderRequest } from '../../workflow/index.js';
import type { BlobStore } from '../cache/index.js';
import type { NodeResult } from '../contracts/node-result.js';
import { canonicalJson } from '../../common/index.js';

/** A node's request fields, and what identifies them. */
export interface ResolvedRequest {
  readonly fields: RequestFields;
  /** The model the request names (its `modelField`), if any. */
  readonly model: string | undefined;
}

/**
 * Renders node k of `step` against `scope`. `upstream` are the results of the nodes it reads;
 * a file field naming one of their `result_url`s gets that result's blob, once its size is
 * checked against the field's cap (a result too large for the field is refused here, before
 * anything is sent or paid for: the service would refuse the upload anyway).
 * @throws DeflowError from the workflow layer (`E_WORKFLOW_LIMIT`, …), `E_RESULT_NOT_DOWNLOADED` or `E_UPSTREAM_TOO_LARGE`.
 */
export function resolveRequest(
  graph: JobGraph,
  step: GraphStep,
  k: number,
  scope: PreparedScope,
  upstream: readonly NodeResult[],
  blobs: BlobStore,
): ResolvedRequest {
  const rendered = renderRequest(graph, step, k, scope);
  const fields: Record<string, FieldValue> = {};
  for (const [name, value] of Object.entries(rendered.fields)) {
    const spec = step.task.fields.find((f) => f.name === name);
    fields[name] = spec?.file ? toFileValue(value, upstream, blobs, step.id, spec) : (value as FieldValue);
  }
  const model = step.task.modelField ? fields[step.task.modelField] : undefined;
  return { fields, model: typeof model === 'string' ? model : undefined };
}

/** sha256 of the request as it will be sent (files by path and upload name), for the journal. */
export function digestRequest(task: string, fields: RequestFields): string {
  const plain: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) plain[name] = toPlain(value);
  return createHash('sha256').update(canonicalJson({ task, fields: plain })).digest('hex');
}

function toFileValue(value: unknown, upstream: readonly NodeResult[], blobs: BlobStore, step: string, spec: FieldSpec): FieldValue {
  const field = spec.name;
  if (Array.isArray(value)) return value.map((v) => toFileValue(v, upstream, blobs, step, spec));
  if (typeof value !== 'string') return value as FieldValue;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return { path: value };
  const source = upstream.find((r) => r.url === value);
  if (source?.blob === undefined) {
    throw new DeflowError('E_RESULT_NOT_DOWNLOADED', `steps.${step}.with.${field}: expected the result file of an upstream job, got a URL that is not one`, {
      details: { step, field },
    });
  }
  const path = blobs.path(source.blob);
  checkUpstreamSize(source, statSync(path).size, spec, step);
  const ref: FileRef = { path, filename: `result${source.ext ? `.${source.ext}` : ''}` };
  return ref;
}

/** The cap of a file field for a result of `kind` (transcription takes 20 MB of audio, 50 MB of video). */
export function fileFieldCap(spec: FieldSpec, kind: NodeResult['kind']): number | undefined {
  const rule = spec.file;
  if (rule === undefined) return undefined;
  return rule === TRANSCRIBE_SOURCE_FILE && kind === 'audio' ? TRANSCRIBE_AUDIO_FILE.maxBytes : rule.maxBytes;
}

function checkUpstreamSize(source: NodeResult, size: number, spec: FieldSpec, step: string): void {
  const cap = fileFieldCap(spec, source.kind);
  if (cap === undefined || size <= cap) return;
  const job = source.requestId === null ? '' : ` of job ${source.requestId}`;
  throw new DeflowError(
    'E_UPSTREAM_TOO_LARGE',
    `steps.${step}.with.${spec.name}: expected a file of at most ${cap} bytes (${mib(cap)}), got the ${source.kind} result${job}, ${size} bytes (${mib(size)}); nothing was sent for this item`,
    { details: { step, field: spec.name, size, maxBytes: cap, requestId: source.requestId } },
  );
}

function mib(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

function toPlain(value: FieldValue): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(toPlain);
  if (typeof value === 'object' && value !== null) {
    if ('stream' in value && typeof value.stream === 'function') return { stream: value.filename };
    if (typeof (value as FileRef).path === 'string' && Object.keys(value).every((key) => key === 'path' || key === 'filename' || key === 'contentType')) {
      const file = value as FileRef;
      return { file: file.path, name: file.filename ?? basename(file.path) };
    }
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, toPlain(entry as FieldValue)]));
  }
  return value;
}
