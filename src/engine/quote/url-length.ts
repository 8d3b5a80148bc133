/**
 * The length of a media URL, read off its price. A transcription or description of a URL is
 * priced by the twin from the media's length, which deflow cannot measure locally (a YouTube
 * link has no file to read). The same twin prices `duration_seconds` on a line; quoted at three
 * lengths and checked to be a line, it turns the URL's price back into seconds. Downstream
 * estimates (the transcript's length, the description's) then have a basis. A price in bands
 * (TikTok) is not a line and is never inverted.
 */
import type { TaskId } from '../../service/index.js';
import { fitAndCheck, type FitTolerance } from './price-fit.js';
import { requestKey, type SizeVariable } from './price-classes.js';
import type { PriceAnswer, PriceBook } from './quote-price-book.js';
import type { Range } from './quote-estimate.js';

/** Lengths the line is quoted at (seconds): two to fit on, the middle one held out. */
const LINE_AT = [60, 600, 3600] as const;
/** Fields that add a flat surcharge to URL sources only: left out of the inversion. */
const URL_SURCHARGES = ['include_metadata'];
/** Hosts priced in bands rather than per second. */
const BANDED = /(^|\.)tiktok\.com$/i;

export type UrlLength = { readonly ok: true; readonly seconds: Range; readonly assumption: string } | { readonly ok: false; readonly reason: string };

const ok = (a: PriceAnswer): a is Extract<PriceAnswer, { ok: true }> => a.ok;

/** The length of the media at `fields[urlField]`, from the twin's price of it and of `variable` on a line. */
export async function inferUrlLength(
  book: PriceBook,
  task: TaskId,
  variable: SizeVariable,
  fields: Readonly<Record<string, unknown>>,
  urlField: string,
  tolerance: FitTolerance,
): Promise<UrlLength> {
  const url = String(fields[urlField]);
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    return { ok: false, reason: `${url} is not a URL` };
  }
  if (BANDED.test(host)) return { ok: false, reason: `${host} sources are priced in bands, not per second` };
  const plain: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) if (!URL_SURCHARGES.includes(name)) plain[name] = value;
  const template: Record<string, unknown> = { ...plain };
  delete template[urlField];
  const request = (f: Record<string, unknown>) => ({ key: requestKey(task, f), task, fields: f, shown: f });
  const [own, ...line] = await Promise.all([
    book.price(request(plain)),
    ...LINE_AT.map((x) => book.price(request({ ...template, [variable.name]: x }))),
  ]);
  if (!own || !ok(own)) return { ok: false, reason: own && !own.ok ? own.reason : 'not quoted' };
  if (!line.every(ok)) return { ok: false, reason: 'the twin did not price the line of lengths' };
  const [at60, at600, at3600] = line.map((a) => a.price) as [number, number, number];
  const outcome = fitAndCheck([{ x: LINE_AT[0], price: at60 }, { x: LINE_AT[2], price: at3600 }], { x: LINE_AT[1], price: at600 }, tolerance);
  if (!outcome.accepted || outcome.fit.slope <= 0) return { ok: false, reason: `the twin's price is not a line in ${variable.name}` };
  const seconds = Math.max(0, (own.price - outcome.fit.intercept) / outcome.fit.slope);
  // Prices are rounded to micro-dollars: the length is known to within that much price.
  const slack = 1e-6 / outcome.fit.slope;
  const shown = Number(seconds.toFixed(1));
  return {
    ok: true,
    seconds: { point: seconds, low: Math.max(0, seconds - slack), high: seconds + slack },
    assumption: `${url} lasts ≈ ${shown} s, read off the price the twin gave for it (${variable.name} priced on a line)`,
  };
}
