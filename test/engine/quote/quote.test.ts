import { copyFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeMp4 } from '../../../src/emulator/media/index.js';
import { quoteRun } from '../../../src/engine/quote/quote.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { clientFor, stepOf, useTempDir, writeMp3s } from './quote-fixtures.js';

const WHISPER = { model: 'WhisperLargeV3', include_ts: false };
const KOKORO = { model: 'Kokoro', lang: 'en-us', voice: 'af_sky', speed: 1, format: 'mp3', sample_rate: 24000 };

async function waitDone(client: ReturnType<typeof clientFor>['client'], ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    for (;;) {
      const status = await client.jobStatus(id);
      if (status.status === 'done' || status.status === 'error') break;
      await client.clock.sleep(1000);
    }
  }
}

describe('quoteRun over loopback', () => {
  it('exact quotes equal what the emulator charges for the same jobs, to the cent', async () => {
    const emulator = await useEmulator({ config: { time_scale: 1000 } });
    const { client, prices } = clientFor(emulator);
    const dir = await useTempDir();
    const files = await writeMp3s(dir, [12, 47, 95]);
    const speechText = 'Read this sentence aloud, please.';
    const input = {
      workflow: 'exact.yaml',
      steps: [
        stepOf('transcribe', 'audio.transcribe', files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] }))),
        stepOf('speak', 'audio.speech', [{ fields: { ...KOKORO, text: speechText }, pending: [] }]),
      ],
    };
    const quote = await quoteRun(input, { prices, clock: emulator.clock });
    expect(quote.total.unknown_items).toBe(0);
    expect(quote.total.estimated).toEqual({ point: 0, low: 0, high: 0 });
    expect(quote.steps.flatMap((s) => s.quoted_items.map((i) => i.method))).toEqual(['exact', 'exact', 'exact', 'exact']);

    const before = (await client.balance()).balance;
    const ids: string[] = [];
    for (const path of files) {
      const submitted = await client.submit('audio.transcribe', { ...WHISPER, source_file: { path } });
      if (submitted.kind === 'job') ids.push(submitted.requestId);
    }
    const spoken = await client.submit('audio.speech', { ...KOKORO, text: speechText });
    if (spoken.kind === 'job') ids.push(spoken.requestId);
    await waitDone(client, ids);
    const charged = emulator.jobs().map((j) => j.price);
    const quoted = quote.steps.flatMap((s) => s.quoted_items.map((i) => i.price));
    expect(quoted).toEqual(charged);
    const drop = before - (await client.balance()).balance;
    expect(Math.round(quote.total.exact * 100)).toBe(Math.round(drop * 100));
    expect(Math.abs(quote.total.exact - drop)).toBeLessThan(1e-9);
  });

  it('sends one request for identical parameters and says which item the others derive from', async () => {
    const emulator = await useEmulator();
    const { prices } = clientFor(emulator);
    const dir = await useTempDir();
    const [a, b] = await writeMp3s(dir, [20, 30]);
    const copy = join(dir, 'copy-of-a.mp3');
    await copyFile(a!, copy);
    const paths = [a!, b!, copy, a!];
    const quote = await quoteRun(
      { workflow: 'dedupe.yaml', steps: [stepOf('t', 'audio.transcribe', paths.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })))] },
      { prices },
    );
    expect(quote.price_requests).toBe(2);
    expect(emulator.stats().quotes).toBe(2);
    const items = quote.steps[0]!.quoted_items;
    expect(items.map((i) => i.method)).toEqual(['exact', 'exact', 'derived', 'derived']);
    expect(items[2]!.derived_from).toEqual({ source: 'run', step: 't', index: 0 });
    expect(items[2]!.basis).toBe('same request as t[0]');
    expect(items[3]!.price).toBe(items[0]!.price);
  });

  it('quotes transcriptions from the length read locally, uploading no media', async () => {
    const emulator = await useEmulator();
    const { prices, log } = clientFor(emulator);
    const dir = await useTempDir();
    const files = await writeMp3s(dir, [30, 240]);
    const quote = await quoteRun(
      { workflow: 'durations.yaml', steps: [stepOf('t', 'audio.transcribe', files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })))] },
      { prices },
    );
    // The 240 s file is 960 kB; each price request carried a few hundred bytes of fields.
    expect((await stat(files[1]!)).size).toBeGreaterThan(900_000);
    expect(log.priceBodies).toHaveLength(2);
    for (const body of log.priceBodies) {
      expect(body.path).toBe('/api/v2/audio/transcriptions/price');
      expect(body.bytes).not.toBeNull();
      expect(body.bytes!).toBeLessThan(1024);
    }
    const item = quote.steps[0]!.quoted_items[1]!;
    expect(item.basis).toMatch(/^price twin, duration_seconds=240(\.\d+)? read locally \(no upload\)$/);
    // 240 s at 0.05 USD per hour.
    expect(item.price).toBeCloseTo(0.003333, 6);
  });

  it('quotes video description and video upscale from the MP4 movie length, equal to the twin given the file', async () => {
    const emulator = await useEmulator();
    const { client, prices, log } = clientFor(emulator);
    const dir = await useTempDir();
    const video = join(dir, 'clip.mp4');
    await writeFile(video, makeMp4({ seconds: 37, width: 64, height: 48, audio: true }));
    const quote = await quoteRun(
      {
        workflow: 'video.yaml',
        steps: [
          stepOf('describe', 'video.describe', [{ fields: { model: 'Marlin_2B', preset: 'detail', video_file: { path: video } }, pending: [] }]),
          stepOf('upscale', 'video.upscale', [{ fields: { model: 'RealESRGAN_Vid_x4', video: { path: video } }, pending: [] }]),
        ],
      },
      { prices },
    );
    expect(log.priceBodies.map((b) => b.bytes !== null && b.bytes < 1024)).toEqual([true, true]);
    const [describe, upscale] = quote.steps.map((s) => s.quoted_items[0]!);
    expect(describe!.basis).toBe('price twin, duration_seconds=37 read locally (no upload)');
    expect(upscale!.basis).toBe('price twin, duration=37 read locally (no upload)');
    expect(describe!.price).toBe(await client.price('video.describe', { model: 'Marlin_2B', preset: 'detail', video_file: { path: video } }));
    expect(upscale!.price).toBe(await client.price('video.upscale', { model: 'RealESRGAN_Vid_x4', video: { path: video } }));
  });

  it('fits a linear class on three quotes plus a held-out check, and the fit matches the twin', async () => {
    const emulator = await useEmulator();
    const { client, prices } = clientFor(emulator);
    const dir = await useTempDir();
    const seconds = [10, 25, 40, 66, 90, 121, 150, 199, 260, 333, 420, 600];
    const files = await writeMp3s(dir, seconds);
    const quote = await quoteRun(
      { workflow: 'fit.yaml', steps: [stepOf('t', 'audio.transcribe', files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })))] },
      { prices },
    );
    expect(quote.price_requests).toBe(4);
    const step = quote.steps[0]!;
    expect(step.classes).toHaveLength(1);
    const cls = step.classes[0]!;
    expect(cls.outcome).toBe('fitted');
    expect(cls.fitted_on).toHaveLength(3);
    expect(cls.check?.accepted).toBe(true);
    expect(step.counts.fitted).toBe(8);
    expect(step.counts.exact).toBe(4);
    for (const item of step.quoted_items.filter((i) => i.method === 'fitted')) {
      expect(item.fitted_on).toEqual(cls.fitted_on);
      expect(item.check).toEqual(cls.check);
      const twin = await client.price('audio.transcribe', { ...WHISPER, duration_seconds: item.x! });
      expect(Math.abs(item.price! - twin)).toBeLessThanOrEqual(Math.max(0.005 * twin, 1e-6) + 1e-12);
      expect(item.low!).toBeLessThanOrEqual(item.price!);
      expect(item.high!).toBeGreaterThanOrEqual(item.price!);
    }
  });

  it('refuses to fit a class priced in bands (TikTok) and quotes each value instead', async () => {
    const emulator = await useEmulator();
    const { prices } = clientFor(emulator);
    const dir = await useTempDir();
    const seconds = [30, 70, 100, 130, 170, 200, 250, 290, 350, 400, 500, 590];
    const files = await writeMp3s(dir, seconds);
    // A crafted class: uploads quoted as TikTok-length sources, which the twin prices by band.
    const fields = (path: string) => ({ model: 'WhisperLargeV3Ct2', include_ts: false, platform: 'tiktok', source_file: { path } });
    const quote = await quoteRun(
      { workflow: 'bands.yaml', steps: [stepOf('t', 'audio.transcribe', files.map((path) => ({ fields: fields(path), pending: [] })))] },
      { prices },
    );
    const step = quote.steps[0]!;
    const cls = step.classes[0]!;
    expect(cls.outcome).toBe('refused');
    expect(cls.check).toBeDefined();
    expect(step.counts.exact).toBe(12);
    expect(step.counts.fitted).toBe(0);
    expect(quote.price_requests).toBe(12);
    // Published TikTok bands by minutes rounded up: ≤1 0.015, ≤2 0.0225, ≤3 0.030, ≤5 0.045, ≤10 0.0825.
    const band = (s: number): number => {
      const minutes = Math.ceil(s / 60);
      return minutes <= 1 ? 0.015 : minutes <= 2 ? 0.0225 : minutes <= 3 ? 0.03 : minutes <= 5 ? 0.045 : 0.0825;
    };
    expect(step.quoted_items.map((i) => i.price)).toEqual(seconds.map(band));
    expect(quote.warnings.some((w) => /not linear/.test(w))).toBe(true);
  });

  it('estimates a speech step that reads transcripts from the source durations, with a range', async () => {
    const emulator = await useEmulator();
    const { client, prices } = clientFor(emulator);
    const dir = await useTempDir();
    const files = await writeMp3s(dir, [60, 120, 300]);
    const quote = await quoteRun(
      {
        workflow: 'chain.yaml',
        steps: [
          stepOf('transcribe', 'audio.transcribe', files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] }))),
          stepOf('speak', 'audio.speech', files.map(() => ({ fields: KOKORO, pending: ['text'] })), 'transcribe'),
        ],
      },
      { prices },
    );
    const speak = quote.steps[1]!;
    expect(speak.counts.estimated).toBe(3);
    const said = 'transcript ≈ 2.5 words per second of source audio (range 1–3.5), 6 characters per word with its space (range 5–7)';
    expect(speak.assumptions).toEqual([said]);
    const item = speak.quoted_items[1]!;
    expect(item.assumption).toBe(said);
    // 120 s × 2.5 words × 6 characters; the range is 120 × 1 × 5 to 120 × 3.5 × 7.
    expect(item.x).toBe(1800);
    // Nine sizes (point, low and high of three items) are past the threshold: the class is fitted.
    expect(speak.classes[0]!.outcome).toBe('fitted');
    const twin = async (count_text: number) => client.price('audio.speech', { ...KOKORO, count_text });
    const within = (usd: number) => Math.max(0.005 * usd, 1e-6) + 1e-12;
    expect(Math.abs(item.price! - (await twin(1800)))).toBeLessThanOrEqual(within(await twin(1800)));
    expect(item.low!).toBeLessThanOrEqual(await twin(600));
    expect(item.low!).toBeGreaterThanOrEqual((await twin(600)) - within(await twin(600)) - 1e-6);
    expect(item.high!).toBeGreaterThanOrEqual(await twin(2940));
    expect(item.high!).toBeLessThanOrEqual((await twin(2940)) + within(await twin(2940)) + 1e-6);
    expect(quote.total.estimated.point).toBeCloseTo(speak.subtotal.estimated.point, 9);
    expect(quote.total.point).toBeCloseTo(quote.total.exact + quote.total.estimated.point, 9);
    expect(quote.total.low).toBeLessThan(quote.total.point);
    expect(quote.total.high).toBeGreaterThan(quote.total.point);
  });

  it("reads a URL source's length off its price, so the transcript read downstream has a basis", async () => {
    const emulator = await useEmulator();
    const { client, prices } = clientFor(emulator);
    const url = 'https://www.youtube.com/watch?v=abc&deflow_duration=240';
    const quote = await quoteRun(
      {
        workflow: 'urls.yaml',
        steps: [
          stepOf('transcribe', 'audio.transcribe', [{ fields: { ...WHISPER, include_metadata: true, source_url: url }, pending: [] }]),
          stepOf('speak', 'audio.speech', [{ fields: KOKORO, pending: ['text'] }], 'transcribe'),
        ],
      },
      { prices },
    );
    const item = quote.steps[1]!.quoted_items[0]!;
    expect(item.method).toBe('estimated');
    // 240 s (the emulator's length for this URL): 240 × 2.5 × 6 characters; the metadata surcharge is not mistaken for seconds.
    expect(item.x).toBe(3600);
    expect(item.price).toBeCloseTo(await client.price('audio.speech', { ...KOKORO, count_text: 3600 }), 5);
    expect(item.assumption).toMatch(/^https:\/\/www\.youtube\.com\/watch\?v=abc&deflow_duration=240 lasts ≈ 240 s, read off the price the twin gave for it/);
    expect(quote.total.unknown_items).toBe(0);
  });

  it('marks an item unknown when nothing upstream tells the length it depends on, and says what would', async () => {
    const emulator = await useEmulator();
    const { prices } = clientFor(emulator);
    const scan = fileURLToPath(new URL('../../../workflows/media/scans/invoice.png', import.meta.url));
    const quote = await quoteRun(
      {
        workflow: 'ocr.yaml',
        steps: [
          stepOf('read', 'image.ocr', [{ fields: { model: 'Nanonets_Ocr_S_F16', image: { path: scan } }, pending: [] }]),
          stepOf('speak', 'audio.speech', [{ fields: KOKORO, pending: ['text'] }], 'read'),
        ],
      },
      { prices },
    );
    const item = quote.steps[1]!.quoted_items[0]!;
    expect(item.method).toBe('unknown');
    expect(item.reason).toMatch(/length of `text`/);
    expect(item.would_know).toBe("a fixed `with.text`: the length of this step's text depends on content nothing measures before it runs");
    expect(quote.total.unknown_items).toBe(1);
    expect(quote.warnings[0]).toMatch(/1 item\(s\) have no price/);
  });

  it('quotes a pending prompt with a placeholder, stating that the price does not depend on it', async () => {
    const emulator = await useEmulator();
    const { prices } = clientFor(emulator);
    const gen = { model: 'Flux1schnell', width: 512, height: 512, steps: 4, guidance: 0, seed: -1 };
    const quote = await quoteRun(
      {
        workflow: 'prompts.yaml',
        steps: [
          stepOf('enhance', 'prompt.enhance', [{ fields: { prompt: 'a fox', type: 'images.generations', model_slug: 'Flux1schnell' }, pending: [] }]),
          stepOf('draw', 'image.generate', [{ fields: gen, pending: ['prompt'] }], 'enhance'),
        ],
      },
      { prices },
    );
    const item = quote.steps[1]!.quoted_items[0]!;
    expect(item).toMatchObject({ method: 'estimated', price: 0.00136, low: 0.00136, high: 0.00136 });
    expect(item.assumption).toMatch(/does not depend on `prompt`/);
  });

  it('stops at the price-request budget and leaves the rest unknown with the reason', async () => {
    const emulator = await useEmulator();
    const { prices } = clientFor(emulator);
    const texts = ['one two three', 'four five six seven', 'eight nine ten eleven twelve'];
    const quote = await quoteRun(
      { workflow: 'budget.yaml', steps: [stepOf('s', 'audio.speech', texts.map((text) => ({ fields: { ...KOKORO, text }, pending: [] })))] },
      { prices, maxPriceRequests: 2 },
    );
    expect(quote.price_requests).toBe(2);
    const unknown = quote.steps[0]!.quoted_items.filter((i) => i.method === 'unknown');
    expect(unknown).toHaveLength(1);
    expect(unknown[0]!.reason).toMatch(/price-request budget \(2, --max-price-requests\) is spent/);
  });

  it('reports a quote above max_cost or above the balance, and never submits', async () => {
    const emulator = await useEmulator({ config: { balance: 0.001 } });
    const { prices } = clientFor(emulator);
    const dir = await useTempDir();
    const files = await writeMp3s(dir, [600, 600]);
    const steps = [stepOf('t', 'audio.transcribe', files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })))];
    const quote = await quoteRun({ workflow: 'money.yaml', steps, maxCost: 0.005 }, { prices });
    expect(quote.total.exact).toBeCloseTo(0.016666, 6);
    expect(quote).toMatchObject({ balance: 0.001, max_cost: 0.005, over_budget: true, over_balance: true });
    const relaxed = await quoteRun({ workflow: 'money.yaml', steps, maxCost: 0.005 }, { prices, maxCost: 1, checkBalance: false });
    expect(relaxed).toMatchObject({ balance: null, max_cost: 1, over_budget: false, over_balance: false });
    expect(emulator.stats().submissions).toBe(0);
  });
});
