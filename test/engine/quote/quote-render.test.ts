import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { quoteRun } from '../../../src/engine/quote/quote.js';
import { compareQuotes, readQuoteFile } from '../../../src/engine/quote/quote-compare.js';
import type { Quote } from '../../../src/engine/quote/quote-types.js';
import { renderQuoteMarkdown } from '../../../src/report/ci/quote-markdown.js';
import { renderQuoteTable } from '../../../src/report/quote-table.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { clientFor, stepOf, useTempDir, writeMp3s } from './quote-fixtures.js';

const WHISPER = { model: 'WhisperLargeV3', include_ts: false };
const KOKORO = { model: 'Kokoro', lang: 'en-us', voice: 'af_sky', speed: 1, format: 'mp3', sample_rate: 24000 };

const SCAN = fileURLToPath(new URL('../../../workflows/media/scans/invoice.png', import.meta.url));

/** Transcription → speech (local files and a URL), and OCR → speech, which nothing can price before the OCR runs. */
async function sampleQuote(seconds: readonly number[], maxCost: number | null = null, allowUnpriced = false): Promise<Quote> {
  const emulator = await useEmulator();
  const { prices } = clientFor(emulator);
  const dir = await useTempDir();
  const files = await writeMp3s(dir, seconds);
  return quoteRun(
    {
      workflow: 'podcast.yaml',
      maxCost,
      steps: [
        stepOf('transcribe', 'audio.transcribe', [
          ...files.map((path) => ({ fields: { ...WHISPER, source_file: { path } }, pending: [] })),
          { fields: { ...WHISPER, source_url: 'https://www.youtube.com/watch?v=x' }, pending: [] },
        ]),
        stepOf('speak', 'audio.speech', [...files, 'url'].map(() => ({ fields: KOKORO, pending: ['text'] })), 'transcribe'),
        stepOf('read', 'image.ocr', [{ fields: { model: 'Nanonets_Ocr_S_F16', image: { path: SCAN } }, pending: [] }]),
        stepOf('say', 'audio.speech', [{ fields: KOKORO, pending: ['text'] }], 'read'),
      ],
    },
    { prices, clock: emulator.clock, allowUnpriced },
  );
}

describe('quote rendering', () => {
  it('prints a table per step with items, unit price, subtotal and how obtained, then the totals and explanations', async () => {
    const quote = await sampleQuote([12, 30, 45, 60, 90, 150, 240, 400]);
    const text = renderQuoteTable(quote);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Quote for podcast.yaml');
    expect(lines[2]).toMatch(/^STEP\s+TASK\s+MODEL\s+ITEMS\s+HAVE\s+UNIT PRICE\s+TO PAY\s+HOW OBTAINED$/);
    expect(lines[3]).toMatch(/^transcribe\s+audio\.transcribe\s+WhisperLargeV3\s+9\s+0\s+\$0\.000167–\$0\.005556\s+\$0\.0170\s+5 exact, 4 fitted$/);
    expect(lines[4]).toMatch(/^speak\s+audio\.speech\s+Kokoro\s+9\s+0\s+\$0\.\d{6}–\$0\.\d{6}\s+\$0\.\d{4} \(up to \$0\.\d{4}\)\s+9 estimated$/);
    expect(lines[5]).toMatch(/^read\s+image\.ocr\s+Nanonets_Ocr_S_F16\s+1\s+0\s+\$0\.000773\s+\$0\.000773\s+1 exact$/);
    expect(lines[6]).toMatch(/^say\s+audio\.speech\s+Kokoro\s+1\s+0\s+—\s+at least \$0\.00 \(1 item unpriced\)\s+1 unknown$/);
    expect(text).toMatch(/\nTo pay: {4}at least \$0\.\d{4} \(1 item unpriced; the priced ones up to \$0\.\d{4}\) {2}\(exact \$0\.\d{4} \+ estimated \$0\.\d{4} \(\$0\.\d{4}–\$0\.\d{4}\)\)\n/);
    expect(text).toContain('\nBalance:   $100.00 — enough for the priced items\n');
    expect(text).not.toContain('Budget:');
    expect(text).toContain(`\nPrice requests sent: ${quote.price_requests}\n`);
    expect(text).toMatch(/\nFits:\n {2}transcribe c1 \(duration_seconds\): fitted over 8 items; line on 12 → \$0\.000167, 60 → \$0\.000833, 400\.008 → \$0\.005556; held out 45: quoted \$0\.000625, predicted \$0\.000625 \(0\.\d+% off\)\n/);
    expect(text).toContain('\nAssumptions:\n  speak: transcript ≈ 2.5 words per second of source audio (range 1–3.5), 6 characters per word with its space (range 5–7)\n');
    expect(text).toMatch(/\n {2}speak: https:\/\/www\.youtube\.com\/watch\?v=x lasts ≈ \d+(\.\d)? s, read off the price the twin gave for it \(duration_seconds priced on a line\)\n/);
    expect(text).toContain(
      '\nUnknown:\n  say[0] say-0: the price depends on the length of `text` (from step read, not produced yet), and nothing upstream tells how long it will be ' +
        "(known with: a fixed `with.text`: the length of this step's text depends on content nothing measures before it runs)\n",
    );
  });

  it('renders Markdown for a pull-request comment, with the verdict first', async () => {
    const quote = await sampleQuote([30, 60], 0.000001, true);
    const md = renderQuoteMarkdown(quote);
    expect(md.startsWith('## ❌ Quote: `podcast.yaml`\n\n**To pay: at least $')).toBe(true);
    expect(md).toMatch(/· budget \$0\.000001 — OVER: the high end \$0\.\d{4,5} is above it by \$0\.\d{4,5} ·/);
    expect(md).toContain('| Step | Task | Model | Items | Have | Unit price | To pay | How obtained |\n|---|---|---|---:|---:|---|---:|---|\n');
    expect(md).toMatch(/\| `transcribe` \| `audio\.transcribe` \| `WhisperLargeV3` \| 3 \| /);
    expect(md).toContain('<details><summary>How the prices were obtained</summary>');
    expect(md).toContain('- speak: transcript ≈ 2.5 words per second of source audio (range 1–3.5), 6 characters per word with its space (range 5–7)');
  });

  it('compares with an earlier JSON quote per step and in total', async () => {
    const before = await sampleQuote([30, 60]);
    const after = await sampleQuote([30, 60, 120]);
    const dir = await useTempDir();
    const file = join(dir, 'previous.json');
    await writeFile(file, JSON.stringify(before));
    const comparison = compareQuotes(await readQuoteFile(file), after, 'previous.json');
    const step = comparison.steps.find((s) => s.id === 'transcribe')!;
    // The third file adds 120 s at 0.05 USD per hour.
    expect(step.change).toBeCloseTo(0.001667, 6);
    const was = before.steps[0]!.subtotal.point;
    expect(step.change_pct).toBeCloseTo((0.001667 / was) * 100, 0);
    expect(comparison.total.after! - comparison.total.before!).toBeCloseTo(comparison.total.change, 6);
    const text = renderQuoteTable(after, comparison);
    expect(text).toMatch(/\nChange against previous\.json:\n {2}STEP\s+BEFORE\s+AFTER\s+CHANGE\n {2}transcribe\s+\$0\.\d{4,5}\s+\$0\.\d{4,5}\s+\+\$0\.00167 \(\+\d+(\.\d+)?%\)\n/);
    const md = renderQuoteMarkdown(after, comparison);
    expect(md).toContain('### Change against `previous.json`');
    expect(md).toMatch(/\| \*\*total\*\* \| \$0\.\d{4,5} \| \$0\.\d{4,5} \| \+\$0\.\d{4,5} \(\+\d+(\.\d+)?%\) \|/);
  });

  it('reads an earlier quote of format 1 or 2, and refuses anything else', async () => {
    const dir = await useTempDir();
    const file = join(dir, 'old.json');
    const v1 = { format_version: 1, max_cost: null, over_budget: false, steps: [{ id: 't', subtotal: { exact: 0.1, estimated: 0.02, low: 0.11, high: 0.15, unknown: 1 } }] };
    await writeFile(file, JSON.stringify({ ...v1, total: v1.steps[0]!.subtotal }));
    const upgraded = await readQuoteFile(file);
    expect(upgraded.total).toEqual({ exact: 0.1, estimated: { point: 0.02, low: 0.01, high: 0.05 }, point: 0.12, low: 0.11, high: 0.15, unknown_items: 1 });
    expect(upgraded.steps[0]!.subtotal.point).toBe(0.12);
    await writeFile(file, JSON.stringify({ format_version: 3, steps: [], total: {} }));
    await expect(readQuoteFile(file)).rejects.toMatchObject({ code: 'E_INPUT_QUOTE', message: `${file}: expected a quote with format_version 1 or 2, steps and total, found format_version 3` });
    await writeFile(file, 'not json');
    await expect(readQuoteFile(file)).rejects.toMatchObject({ code: 'E_INPUT_QUOTE' });
  });
});
