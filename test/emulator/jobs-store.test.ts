import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { parseBuffer } from 'music-metadata';
import { describe, expect, it } from 'vitest';
import { JobStore } from '../../src/emulator/jobs/job-store.js';
import type { EmulatorJob, JobsConfig, ResolvedRequest } from '../../src/emulator/types.js';
import { validateRequest } from '../../src/emulator/requests/validate-request.js';
import { createManualClock } from '../helpers/manual-clock.js';
import { jsonBody, models, post } from './validation-helpers.js';

const JOBS: JobsConfig = { duration_ms: 10_000, durations: {}, jitter: 0, queue_share: 0.1, fail_rate: 0, scale_by_input: false };

function setup(config: Partial<JobsConfig> = {}) {
  const clock = createManualClock();
  const charged: string[] = [];
  const released: string[] = [];
  let draws = 0;
  const store = new JobStore(
    { clock, baseUrl: () => 'http://127.0.0.1:1', random: () => ((draws++ * 0.37) % 1) },
    { ...JOBS, ...config },
    { charge: (job) => charged.push(job.requestId), release: (job) => released.push(job.requestId) },
  );
  return { clock, store, charged, released };
}

async function resolve(path: string, values: Record<string, unknown>): Promise<ResolvedRequest> {
  const result = await validateRequest(post(path), jsonBody(values), models, { allowHttpWebhooks: true });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.request;
}

const image = (extra: Record<string, unknown> = {}) =>
  resolve('/api/v2/images/generations', { prompt: 'fox', model: 'Flux1schnell', width: 512, height: 256, steps: 4, ...extra });

function query(url: string): URLSearchParams {
  return new URL(url).searchParams;
}

describe('job lifecycle on the virtual clock', () => {
  it('goes pending → processing with rising progress → done, and charges once', async () => {
    const { clock, store, charged } = setup();
    const job = store.create(await image(), 1360, 1);
    expect(store.statusData(job)).toMatchObject({ status: 'pending', progress: 0, result_url: null, price: null });
    clock.advance(1000);
    expect(store.get(job.requestId)).toMatchObject({ status: 'processing', progress: 0 });
    clock.advance(4500);
    expect(store.statusData(job)).toMatchObject({ status: 'processing', progress: 50, result_url: null, results_alt_formats: null });
    clock.advance(4500);
    const data = store.statusData(job);
    expect(data).toMatchObject({ status: 'done', progress: 100, preview: null, result: null, metadata: null, price: { amount: 0.00136, is_estimated: false } });
    expect(data['result_url']).toMatch(/^http:\/\/127\.0\.0\.1:1\/results\/[0-9a-f-]{36}\/result\.png\?expires=\d+&signature=[0-9a-f]{64}$/);
    store.statusData(job);
    store.get(job.requestId);
    expect(charged).toEqual([job.requestId]);
  });

  it('settles a job nobody polls', async () => {
    const { clock, store, charged } = setup();
    const job = store.create(await image(), 1360, 1);
    clock.advance(20_000);
    await Promise.resolve();
    expect(charged).toEqual([job.requestId]);
    expect(job.status).toBe('done');
  });

  it('a failed job reports the error fields, costs 0 and is released, not charged', async () => {
    const { clock, store, charged, released } = setup({ fail_rate: 1 });
    const job = store.create(await image(), 1360, 1);
    clock.advance(20_000);
    const data = store.statusData(job);
    expect(data).toMatchObject({
      status: 'error',
      result_url: null,
      price: { amount: 0, is_estimated: false },
      error_code: 'WORKER_TIMEOUT',
      error_message: 'Worker failed to respond within the allowed time',
      error_reason: 'TIMEOUT',
      retryable: true,
      refunded: true,
    });
    expect(data['failed_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(charged).toEqual([]);
    expect(released).toEqual([job.requestId]);
  });

  it('scales the duration by input size when asked (10 minutes of audio = 10 × base)', async () => {
    const { clock, store } = setup({ scale_by_input: true, queue_share: 0 });
    const request = await resolve('/api/v2/audio/transcriptions', { model: 'WhisperLargeV3', include_ts: false, source_url: 'https://youtu.be/a?deflow_duration=600' });
    const job = store.create(request, 1, 1);
    clock.advance(99_000);
    expect(store.get(job.requestId)?.status).toBe('processing');
    clock.advance(1_000);
    expect(store.get(job.requestId)?.status).toBe('done');
  });

  it('keeps the parameters digest equal for equal requests', async () => {
    const { store } = setup();
    const a: EmulatorJob = store.create(await image(), 1, 1);
    const b: EmulatorJob = store.create(await image(), 1, 1);
    const c: EmulatorJob = store.create(await image({ seed: 5 }), 1, 1);
    expect(a.paramsDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(a.paramsDigest).toBe(b.paramsDigest);
    expect(a.paramsDigest).not.toBe(c.paramsDigest);
  });
});

describe('results', () => {
  it('serves the PNG and its JPEG / WebP alternates behind signed URLs only', async () => {
    const { clock, store } = setup();
    const job = store.create(await image(), 1, 1);
    clock.advance(10_000);
    const data = store.statusData(job) as { result_url: string; results_alt_formats: { jpg: string; webp: string } };
    const png = store.download(job.requestId, 'result.png', query(data.result_url));
    expect(png?.contentType).toBe('image/png');
    expect(imageSize(png?.body ?? Buffer.alloc(0))).toMatchObject({ width: 512, height: 256 });
    const jpg = store.download(job.requestId, 'result.jpg', query(data.results_alt_formats.jpg));
    expect((await fileTypeFromBuffer(jpg?.body ?? Buffer.alloc(0)))?.mime).toBe('image/jpeg');
    const webp = store.download(job.requestId, 'result.webp', query(data.results_alt_formats.webp));
    expect((await fileTypeFromBuffer(webp?.body ?? Buffer.alloc(0)))?.mime).toBe('image/webp');
    const forged = query(data.result_url);
    forged.set('signature', '0'.repeat(64));
    expect(store.download(job.requestId, 'result.png', forged)).toBeUndefined();
    expect(store.download(job.requestId, 'result.jpg', query(data.result_url))).toBeUndefined();
    clock.advance(3_601_000);
    expect(store.download(job.requestId, 'result.png', query(data.result_url))).toBeUndefined();
  });

  it('puts the transcript inline with return_result_in_response and adds metadata for URL sources', async () => {
    const { clock, store } = setup();
    const request = await resolve('/api/v2/audio/transcriptions', {
      model: 'WhisperLargeV3', include_ts: true, source_url: 'https://www.youtube.com/watch?v=x&deflow_duration=40',
      return_result_in_response: true, include_metadata: true,
    });
    const job = store.create(request, 1, 1);
    clock.advance(10_000);
    const data = store.statusData(job) as { result: string; result_url: string; metadata: Record<string, unknown> };
    const parsed = JSON.parse(data.result) as { text: string; language: string; segments: { start: number; end: number; text: string }[] };
    expect(parsed.language).toBe('en');
    expect(parsed.segments.at(-1)?.end).toBe(40);
    expect(parsed.text.split(' ').length).toBe(100);
    expect(data.result_url).toMatch(/\/result\.json\?/);
    expect(Object.keys(data.metadata)).toHaveLength(30);
    expect(data.metadata).toMatchObject({ duration_seconds: 40, extractor: 'youtube', repost_count: null });
    expect(typeof data.metadata['title']).toBe('string');
  });

  it('renders music as an MP3 of the requested duration', async () => {
    const { clock, store } = setup();
    const request = await resolve('/api/v2/audio/music', { caption: 'jazz', model: 'AceStep_1_5_Turbo', duration: 45, inference_steps: 8 });
    const job = store.create(request, 1, 1);
    clock.advance(10_000);
    const url = (store.statusData(job) as { result_url: string }).result_url;
    const file = store.download(job.requestId, 'result.mp3', query(url));
    expect(file?.contentType).toBe('audio/mpeg');
    const meta = await parseBuffer(file?.body ?? Buffer.alloc(0), { mimeType: 'audio/mpeg', size: file?.body.length ?? 0 });
    expect(meta.format.duration).toBeCloseTo(45, 0);
  });

  it('renders a video description as events / scenes / meta JSON', async () => {
    const { clock, store } = setup();
    const request = await resolve('/api/v2/videos/descriptions', {
      model: 'Marlin_2B', video_url: 'https://youtu.be/v?deflow_duration=60', preset: 'detail', return_result_in_response: true,
    });
    const job = store.create(request, 1, 1);
    clock.advance(10_000);
    const result = JSON.parse((store.statusData(job) as { result: string }).result) as { events: unknown[]; scenes: unknown[]; meta: unknown };
    expect(result.meta).toEqual({ duration: 60, preset: 'detail' });
    expect(result.events).toHaveLength(12);
    expect(result.events[0]).toMatchObject({ start: 0, end: 5 });
    expect(result.scenes.length).toBeGreaterThan(0);
  });

  it('renders embeddings as 1024-float vectors, equal for equal inputs', async () => {
    const { clock, store } = setup();
    const request = await resolve('/api/v2/embeddings', { model: 'Bge_M3_FP16', input: ['same', 'other', 'same'], return_result_in_response: true });
    const job = store.create(request, 1, 1);
    clock.advance(10_000);
    const result = JSON.parse((store.statusData(job) as { result: string }).result) as { dimensions: number; data: { index: number; embedding: number[] }[] };
    expect(result.dimensions).toBe(1024);
    expect(result.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(result.data[0]?.embedding).toHaveLength(1024);
    expect(result.data[0]?.embedding).toEqual(result.data[2]?.embedding);
    expect(result.data[0]?.embedding).not.toEqual(result.data[1]?.embedding);
  });
});
