/**
 * Results flow between steps through the queue, files through their `result_url`: a worker
 * that runs a node whose input is an upstream media result it does not have on disk (another
 * worker, on another machine, downloaded it) fetches it again into its blob store, and checks
 * it is the same file.
 */
import type { DeapiClient } from '../../client/index.js';
import { DeflowError } from '../../common/index.js';
import type { BlobStore } from '../cache/index.js';
import type { NodeResult } from '../run/index.js';

/** Makes every upstream blob present locally. @throws DeflowError `E_QUEUE_RESULT_FETCH` */
export async function ensureUpstreamBlobs(results: readonly (readonly [number, NodeResult])[], blobs: BlobStore, client: DeapiClient, signal?: AbortSignal): Promise<void> {
  for (const [, result] of results) {
    if (result.blob === undefined || (await blobs.has(result.blob))) continue;
    const url = result.url;
    if (url === null || !/^https?:\/\//i.test(url)) {
      throw new DeflowError('E_QUEUE_RESULT_FETCH', `the result of job ${result.requestId ?? '?'} is not on this worker's disk and has no result URL to fetch it from`, {
        details: { requestId: result.requestId },
      });
    }
    const opened = await client.openResult(url, signal === undefined ? {} : { signal });
    const sha = await blobs.putStream(opened.stream);
    if (sha !== result.blob) {
      throw new DeflowError('E_QUEUE_RESULT_FETCH', `the result of job ${result.requestId ?? '?'} fetched again from its result URL is not the file the upstream worker saw`, {
        details: { requestId: result.requestId },
      });
    }
  }
}
