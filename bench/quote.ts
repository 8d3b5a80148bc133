/**
 * `npm run bench -- quote [--n 1000] [--time-scale 100] [--rpm 60] [--seed 7]`
 *
 * Quoting a workflow of N audio files of varied length (10–600 s) through transcription then
 * speech (the speech reads each transcript), on an in-process emulator whose quote pool allows
 * `rpm` requests per minute, on a virtual clock. deflow's quote against a naive quote (one
 * price request per node, sequential: the transcription priced with its file, the speech with
 * the same 15 characters-per-second guess), each on a fresh emulator. Then the truth: on a third
 * emulator with quotes unthrottled, every transcription is priced by its twin with the file
 * uploaded, i.e. exactly what a full run would be charged, and every speech at its point guess.
 *
 * Figures: price requests (target ≤ classes × 4: three fit points and one held-out check per
 * class, never one per item), virtual seconds, the error of the exact part (target: exact to the
 * cent) and of the fitted part (target ≤ 1 %). `virtual_s` includes local work (reading N file
 * headers) multiplied by the time scale; `request_span_virtual_s` is first price request to last answer.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { DeapiClient } from '../src/client/deapi-client.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import { quoteRun } from '../src/engine/quote/quote.js';
import type { QuoteItem, QuoteStep } from '../src/engine/quote/quote-input.js';
import type { PriceSource } from '../src/engine/quote/quote-price-book.js';
import { clientPriceSource } from '../src/engine/quote/quote-price-source.js';
import type { Quote } from '../src/engine/quote/quote-types.js';
import type { TaskId } from '../src/service/types.js';
import { linkBenchSchemas } from './_bench-schemas.js';
import { printTable, readNumberArg, round } from './_bench-util.js';

const WHISPER = { model: 'WhisperLargeV3', include_ts: false };
const KOKORO = { model: 'Kokoro', lang: 'en-us', voice: 'af_sky', speed: 1, format: 'mp3', sample_rate: 24000 };
const CHARS_PER_SECOND = 15;

/**
 * A real MP3 of a few hundred bytes that says it lasts `seconds`: an Xing info frame carrying
 * the frame count and stream size (as VBR encoders write), then a few silent frames.
 * MPEG-1 Layer III, 32 kbit/s, 48 kHz, mono: 96-byte frames of 24 ms. (The emulator's
 * `makeMp3` writes every frame, 4 KB per second: 1.2 GB for this workload.)
 */
function makeXingMp3(seconds: number): Buffer {
  const frameBytes = 96;
  const frames = Math.max(1, Math.round(seconds / 0.024));
  const header = [0xff, 0xfb, 0x14, 0xc0];
  const info = Buffer.alloc(frameBytes);
  info.set(header, 0);
  // Side information of a mono MPEG-1 frame is 17 bytes; the tag follows it.
  info.write('Xing', 21, 'latin1');
  info.writeUInt32BE(0x3, 25); // frames and bytes fields present
  info.writeUInt32BE(frames, 29);
  info.writeUInt32BE(frames * frameBytes, 33);
  const silent = Buffer.alloc(frameBytes);
  silent.set(header, 0);
  return Buffer.concat([info, ...Array.from({ length: 8 }, () => silent)]);
}

function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function stepOf(id: string, task: TaskId, items: readonly Omit<QuoteItem, 'index' | 'key'>[], upstream: string | null): QuoteStep {
  return {
    id,
    task,
    items: items.length,
    upstream,
    async *iterate() {
      for (let index = 0; index < items.length; index++) yield { index, key: `${id}-${index}`, ...items[index]! };
    },
  };
}

interface Workload {
  readonly n: number;
  readonly timeScale: number;
  readonly rpm: number;
  readonly seed: number;
}

/** Counts of the emulator's own (`GET /_emulator/stats`): price requests and 429s as the service saw them. */
interface ServiceCounts {
  readonly service_quotes: number;
  readonly service_429: number;
}

async function withEmulator<T>(w: Workload, quoteRpm: number | null, action: (client: DeapiClient, elapsed: () => number) => Promise<T>): Promise<T & ServiceCounts> {
  const emulator = await startEmulator({
    config: { time_scale: w.timeScale, seed: w.seed, rate_limits: { quote: quoteRpm === null ? null : { rpm: quoteRpm } } },
  });
  const client = new DeapiClient({ apiKey: emulator.keys.api, baseUrl: emulator.url, clock: emulator.clock });
  try {
    const start = emulator.clock.now();
    const result = await action(client, () => (emulator.clock.now() - start) / 1000);
    const stats = (await (await fetch(`${emulator.url}/_emulator/stats`)).json()) as { quotes: number; by_status: Record<string, number> };
    return { ...result, service_quotes: stats.quotes, service_429: stats.by_status['429'] ?? 0 };
  } finally {
    await client.close();
    await emulator.close();
  }
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  linkBenchSchemas();
  const w: Workload = {
    n: readNumberArg(args, 'n', 1000),
    timeScale: readNumberArg(args, 'time-scale', 100),
    rpm: readNumberArg(args, 'rpm', 60),
    seed: readNumberArg(args, 'seed', 7),
  };
  const dir = await mkdtemp(join(tmpdir(), 'deflow-bench-quote-'));
  try {
    const random = seededRandom(w.seed);
    const seconds = Array.from({ length: w.n }, () => 10 + random() * 590);
    const paths = await Promise.all(
      seconds.map(async (s, i) => {
        const path = join(dir, `episode-${String(i).padStart(4, '0')}.mp3`);
        await writeFile(path, makeXingMp3(s));
        return path;
      }),
    );
    const steps = [
      stepOf('transcribe', 'audio.transcribe', paths.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })), null),
      stepOf('speak', 'audio.speech', paths.map(() => ({ fields: KOKORO, pending: ['text'] })), 'transcribe'),
    ];
    process.stdout.write(`quote: ${w.n} files of 10–600 s, transcribe → speech, quote pool ${w.rpm}/min, time scale ${w.timeScale}\n`);

    const realStart = performance.now();
    const { quote, virtualS, requestSpanS, service_quotes: deflowQuotes, service_429: deflow429 } = await withEmulator(w, w.rpm, async (client, elapsed) => {
      // The span from the first price request to the last answer, apart from local work.
      const source = clientPriceSource(client);
      let first = Number.POSITIVE_INFINITY;
      let last = Number.NEGATIVE_INFINITY;
      const prices: PriceSource = {
        balance: (o) => source.balance(o),
        price: async (task, fields, o) => {
          first = Math.min(first, client.clock.now());
          try {
            return await source.price(task, fields, o);
          } finally {
            last = Math.max(last, client.clock.now());
          }
        },
      };
      const quote = await quoteRun({ workflow: 'bench-quote', steps }, { prices, clock: client.clock });
      return { quote, virtualS: elapsed(), requestSpanS: last >= first ? (last - first) / 1000 : 0 };
    });
    const realMs = performance.now() - realStart;

    const naive = await withEmulator(w, w.rpm, async (client, elapsed) => {
      let total = 0;
      let requests = 0;
      for (let i = 0; i < w.n; i++) {
        total += await client.price('audio.transcribe', { ...WHISPER, source_file: { path: paths[i]! } });
        total += await client.price('audio.speech', { ...KOKORO, count_text: Math.round(seconds[i]! * CHARS_PER_SECOND) });
        requests += 2;
      }
      return { total, requests, virtualS: elapsed() };
    });

    const truth = await withEmulator(w, null, async (client) => {
      const limit = pLimit(16);
      const transcribe = await Promise.all(paths.map((path) => limit(() => client.price('audio.transcribe', { ...WHISPER, source_file: { path } }))));
      return { transcribe };
    });
    const figures = compare(quote, truth.transcribe);
    const classes = quote.steps.reduce((n, s) => n + s.classes.length, 0);

    printTable(
      ['quote', 'price requests', 'virtual s', 'of which requests', 'total point $', 'exact $', 'estimated $'],
      [
        ['deflow', deflowQuotes, round(virtualS, 1), round(requestSpanS, 1), round(quote.total.point, 6), round(quote.total.exact, 6), round(quote.total.estimated.point, 6)],
        ['naive', naive.service_quotes, round(naive.virtualS, 1), round(naive.virtualS, 1), round(naive.total, 6), '', ''],
      ],
    );
    process.stdout.write(
      `classes ${classes} (target ≤ ${classes * 4} requests); exact part off by $${figures.exactError}; fitted part off by ${figures.fittedErrorPct}% ` +
        `(worst item ${figures.worstFittedPct}%); transcription total $${round(figures.truthTotal, 6)} vs quoted $${round(figures.quotedTranscribe, 6)}; ` +
        `speech estimate $${round(quote.steps[1]!.subtotal.estimated.point, 6)} (range $${round(quote.steps[1]!.subtotal.low, 6)}–$${round(quote.steps[1]!.subtotal.high, 6)}); real ${round(realMs, 0)} ms\n`,
    );
    return {
      n: w.n,
      time_scale: w.timeScale,
      quote_rpm: w.rpm,
      price_requests: quote.price_requests,
      service_price_requests: deflowQuotes,
      service_429: deflow429,
      classes,
      target_max_requests: classes * 4,
      virtual_s: round(virtualS, 1),
      request_span_virtual_s: round(requestSpanS, 1),
      real_ms: round(realMs, 0),
      exact_error: figures.exactError,
      fitted_error_pct: figures.fittedErrorPct,
      worst_fitted_item_pct: figures.worstFittedPct,
      exact_items: figures.exactItems,
      fitted_items: figures.fittedItems,
      estimated_items: quote.steps[1]!.counts.estimated,
      total_point: round(quote.total.point, 6),
      total_low: quote.total.low,
      total_high: quote.total.high,
      naive_price_requests: naive.requests,
      naive_service_price_requests: naive.service_quotes,
      naive_service_429: naive.service_429,
      naive_virtual_s: round(naive.virtualS, 1),
      naive_total: round(naive.total, 6),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Compares the transcription step's quoted prices with what the emulator charges for each job. */
function compare(quote: Quote, truth: readonly number[]) {
  let exactQuoted = 0;
  let exactTruth = 0;
  let fittedQuoted = 0;
  let fittedTruth = 0;
  let worst = 0;
  let exactItems = 0;
  let fittedItems = 0;
  for (const item of quote.steps[0]!.quoted_items) {
    const actual = truth[item.index]!;
    if (item.method === 'exact' || item.method === 'derived') {
      exactItems++;
      exactQuoted += item.price!;
      exactTruth += actual;
    } else if (item.method === 'fitted') {
      fittedItems++;
      fittedQuoted += item.price!;
      fittedTruth += actual;
      if (actual > 0) worst = Math.max(worst, (Math.abs(item.price! - actual) / actual) * 100);
    }
  }
  return {
    exactError: round(Math.abs(exactQuoted - exactTruth), 6),
    fittedErrorPct: fittedTruth > 0 ? round((Math.abs(fittedQuoted - fittedTruth) / fittedTruth) * 100, 4) : 0,
    worstFittedPct: round(worst, 4),
    exactItems,
    fittedItems,
    truthTotal: truth.reduce((s, p) => s + p, 0),
    quotedTranscribe: quote.steps[0]!.quoted_items.reduce((s, i) => s + (i.price ?? 0), 0),
  };
}
