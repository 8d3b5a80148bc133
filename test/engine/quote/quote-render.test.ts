import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quoteRun } from '../../../src/engine/quote/quote.js';
import { compareQuotes, readQuoteFile } from '../../../src/engine/quote/quote-compare.js';
import type { Quote } from '../../../src/engine/quote/quote-types.js';
import { renderQuoteMarkdown } from '../../../src/report/quote-markdown.js';
import { renderQuoteTable } from '../../../src/report/quote-table.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { clientFor, stepOf, useTempDir, writeMp3s } from './quote-fixtures.js';

const WHISPER = { model: 'WhisperLargeV3', include_ts: false };
const KOKORO = { model: 'Kokoro', lang: 'en-us', voice: 'af_sky', speed: 1, format: 'mp3', sample_rate: 24000 };

async function sampleQuote(seconds: readonly number[], maxCost: number | null = null): Promise<Quote> {
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
      ],
    },
    { prices, clock: emulator.clock },
  );
}

describe('quote rendering', () => {
  it('prints a table per step with items, unit price, subtotal and how obtained, then the totals and explanations', async () => {
    const quote = await sampleQuote([12, 30, 45, 60, 90, 150, 240, 400]);
    const text = renderQuoteTable(quote);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Quote for podcast.yaml');
    expect(lines[2]).toMatch(/^STEP\s+TASK\s+MODEL\s+ITEMS\s+UNIT PRICE\s+SUBTOTAL\s+HOW OBTAINED$/);
    expect(lines[3]).toMatch(/^transcribe\s+audio\.transcribe\s+WhisperLargeV3\s+9\s+\$0\.\d{6}–\$0\.\d{6}\s+\$0\.\d{4}\s+5 exact, 4 fitted$/);
    expect(lines[4]).toMatch(/^speak\s+audio\.speech\s+Kokoro\s+9\s+.*8 estimated, 1 unknown$/);
    expect(text).toMatch(/\nTotal: {5}\$0\.\d{4} \(\$0\.\d{4}–\$0\.\d{4}\) \+ 1 unknown {2}\(exact \$0\.\d{4} \+ estimated \$0\.\d{4}\)\n/);
    expect(text).toContain('\nBalance:   $100.00 — enough\n');
    expect(text).toContain(`\nPrice requests sent: ${quote.price_requests}\n`);
    expect(text).toMatch(/\nFits:\n {2}transcribe c1 \(duration_seconds\): fitted over 8 items; line on 12 → \$0\.000167, 60 → \$0\.000833, 400\.008 → \$0\.005556; held out 45: quoted \$0\.000625, predicted \$0\.000625 \(0\.\d+% off\)\n/);
    expect(text).toContain('\nAssumptions:\n  speak: transcript ≈ 15 characters per second of source audio (range 8–25)\n');
    expect(text).toContain('\nUnknown:\n  speak[8] speak-8: the price depends on the length of `text` (from step transcribe, not produced yet), and nothing upstream tells how long it will be\n');
  });

  it('renders Markdown for a pull-request comment, with the verdict first', async () => {
    const quote = await sampleQuote([30, 60], 0.000001);
    const md = renderQuoteMarkdown(quote);
    expect(md.startsWith('## ❌ Quote: `podcast.yaml`\n\n**Total: $')).toBe(true);
    expect(md).toMatch(/· budget \$0\.0000 — OVER by \$0\.\d{4} ·/);
    expect(md).toContain('| Step | Task | Model | Items | Unit price | Subtotal | How obtained |\n|---|---|---|---:|---|---:|---|\n');
    expect(md).toMatch(/\| `transcribe` \| `audio\.transcribe` \| `WhisperLargeV3` \| 3 \| /);
    expect(md).toContain('<details><summary>How the prices were obtained</summary>');
    expect(md).toContain('- speak: transcript ≈ 15 characters per second of source audio (range 8–25)');
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
    const was = before.steps[0]!.subtotal.exact + before.steps[0]!.subtotal.estimated;
    expect(step.change_pct).toBeCloseTo((0.001667 / was) * 100, 0);
    expect(comparison.total.after! - comparison.total.before!).toBeCloseTo(comparison.total.change, 6);
    const text = renderQuoteTable(after, comparison);
    expect(text).toMatch(/\nChange against previous\.json:\n {2}STEP\s+BEFORE\s+AFTER\s+CHANGE\n {2}transcribe\s+\$0\.\d{4}\s+\$0\.\d{4}\s+\+\$0\.0017 \(\+\d+(\.\d+)?%\)\n/);
    const md = renderQuoteMarkdown(after, comparison);
    expect(md).toContain('### Change against `previous.json`');
    expect(md).toMatch(/\| \*\*total\*\* \| \$0\.\d{4} \| \$0\.\d{4} \| \+\$0\.\d{4} \(\+\d+(\.\d+)?%\) \|/);
  });

  it('refuses an earlier quote that is not a version-1 quote', async () => {
    const dir = await useTempDir();
    const file = join(dir, 'old.json');
    await writeFile(file, JSON.stringify({ format_version: 2, steps: [], total: {} }));
    await expect(readQuoteFile(file)).rejects.toMatchObject({ code: 'E_INPUT_QUOTE', message: `${file}: expected a quote with format_version 1, steps and total, found format_version 2` });
    await writeFile(file, 'not json');
    await expect(readQuoteFile(file)).rejects.toMatchObject({ code: 'E_INPUT_QUOTE' });
  });
});
