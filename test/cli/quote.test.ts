import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

const SCAN = fileURLToPath(new URL('../../workflows/media/scans/invoice.png', import.meta.url));

const WORKFLOW = `version: 1
name: dub
inputs:
  voice: { type: string, default: af_bella }
steps:
  transcribe:
    task: audio.transcribe
    for_each: { glob: "episodes/*.mp3" }
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: false }
  speak:
    task: audio.speech
    for_each: transcribe
    with: { text: "\${{ steps.transcribe.text }}", model: Kokoro, voice: "\${{ inputs.voice }}", lang: en-us }
`;

/** A workflow folder with three episodes, quoted against `emulator` through the real CLI. */
async function setup(emulator: RunningEmulator, workflow = WORKFLOW): Promise<{ dir: string; quote: (...args: string[]) => Promise<{ code: number; out: string; err: string }> }> {
  const dir = await mkdtemp(join(tmpdir(), 'deflow-cli-quote-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'episodes'));
  for (const [name, seconds] of [['a', 20], ['b', 65], ['c', 140]] as const) await writeFile(join(dir, 'episodes', `${name}.mp3`), makeMp3(seconds));
  await writeFile(join(dir, 'dub.yaml'), workflow);
  return {
    dir,
    quote: async (...args) => {
      const io = createFakeCliIO(dir);
      Object.assign(io.env, { DEAPI_API_KEY: emulator.keys.api, DEAPI_BASE_URL: emulator.url });
      const code = await runCli(['quote', 'dub.yaml', ...args], io);
      return { code, out: io.stdoutText(), err: io.stderrText() };
    },
  };
}

describe('deflow quote', () => {
  it('prints the JSON quote, sends only price requests, and prices the files as the emulator charges them', async () => {
    const emulator = await useEmulator();
    const { quote } = await setup(emulator);
    const { code, out, err } = await quote('--format', 'json');
    expect(err).toBe('');
    expect(code).toBe(0);
    const json = JSON.parse(out);
    expect(json).toMatchObject({ format_version: 2, workflow: 'dub.yaml', currency: 'USD', balance: 100, max_cost: null, over_budget: false, over_balance: false, verdict: 'no-budget' });
    expect(Object.keys(json.total)).toEqual(['exact', 'estimated', 'point', 'low', 'high', 'unknown_items']);
    expect(Object.keys(json.total.estimated)).toEqual(['point', 'low', 'high']);
    expect(json.steps.map((s: { id: string; items: number }) => [s.id, s.items])).toEqual([['transcribe', 3], ['speak', 3]]);
    // 20 + 65 + 140 s at 0.05 USD per hour, each rounded to a micro-dollar.
    expect(json.steps[0].subtotal.exact).toBeCloseTo(0.000278 + 0.000903 + 0.001944, 6);
    expect(json.steps[1].counts.estimated).toBe(3);
    const stats = emulator.stats();
    expect(stats.submissions).toBe(0);
    expect(stats.quotes).toBe(json.price_requests);
    expect(json.price_requests).toBeLessThanOrEqual(3 + 4);
  });

  it('--emulator quotes against an in-process emulator with no key', async () => {
    const emulator = await useEmulator();
    const { dir } = await setup(emulator);
    const io = createFakeCliIO(dir);
    const code = await runCli(['quote', 'dub.yaml', '--emulator', '--format', 'json', '--no-quote-cache'], io);
    expect(io.stderrText()).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(io.stdoutText()).steps[0].counts).toEqual({ exact: 3, derived: 0, fitted: 0, estimated: 0, unknown: 0 });
  });

  it('prints a table by default and Markdown with --format markdown', async () => {
    const emulator = await useEmulator();
    const { quote } = await setup(emulator);
    const table = await quote('--no-quote-cache');
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^Quote for dub\.yaml\n\nSTEP {8}TASK {14}MODEL {11}ITEMS {2}HAVE {2}UNIT PRICE/);
    expect(table.out).toMatch(/\nPrice requests sent: \d+\n/);
    const md = await quote('--format', 'markdown', '--no-quote-cache');
    expect(md.code).toBe(0);
    expect(md.out).toMatch(/^## ✅ Quote: `dub\.yaml`\n\n\*\*To pay: \$0\.\d{5} \(up to \$0\.\d{5}\)\*\* · /);
    expect(md.out).toContain('| `speak` | `audio.speech` | `Kokoro` | 3 |');
  });

  it('exits 4 when the high end is above --max-cost or budget.max_cost, or the point above the balance', async () => {
    const emulator = await useEmulator();
    const { quote, dir } = await setup(emulator);
    const total = JSON.parse((await quote('--format', 'json')).out).total;
    expect(total.high).toBeGreaterThan(total.point);
    // A cap between the point and the high end fails: the gate compares the high end.
    const between = ((total.point + total.high) / 2).toFixed(6);
    const over = await quote('--max-cost', between, '--format', 'json');
    expect(over.code).toBe(4);
    expect(JSON.parse(over.out)).toMatchObject({ max_cost: Number(between), over_budget: true, verdict: 'over-budget' });
    expect(over.err).toMatch(/^deflow: over-budget: the high end of the quote, \$0\.\d+, is above the cap of \$0\.\d+\n$/);
    await writeFile(join(dir, 'dub.yaml'), WORKFLOW.replace('steps:\n', 'budget: { max_cost: 0.0001 }\nsteps:\n'));
    const budget = await quote();
    expect(budget.code).toBe(4);
    expect(budget.out).toMatch(/\nBudget: {4}\$0\.000100 — OVER: the high end \$0\.\d{5} is above it by \$0\.\d{5}\n/);
    const fine = await quote('--max-cost', '10');
    expect(fine.code).toBe(0);
    expect(fine.out).toMatch(/\nBudget: {4}\$10\.00 — within \(high end \$0\.\d{5}\)\n/);

    const poor = await useEmulator({ config: { balance: 0.001 } });
    const broke = await (await setup(poor)).quote();
    expect(broke.code).toBe(4);
    expect(broke.out).toMatch(/\nBalance: {3}\$0\.00100 — NOT enough for \$0\.\d{5} \(the high end\)\n/);
    expect(emulator.stats().submissions + poor.stats().submissions).toBe(0);
  });

  it('fails the budget gate with exit 4 when items have no price, unless --allow-unpriced', async () => {
    const emulator = await useEmulator();
    const { quote, dir } = await setup(emulator);
    await copyFile(SCAN, join(dir, 'scan.png'));
    const ocr = `version: 1
name: ocr-speech
steps:
  read:
    task: image.ocr
    with: { image: scan.png, model: Nanonets_Ocr_S_F16 }
  say:
    task: audio.speech
    with: { text: "\${{ steps.read.text }}", model: Kokoro, voice: af_sky, lang: en-us }
`;
    await writeFile(join(dir, 'dub.yaml'), ocr);
    const gated = await quote('--max-cost', '5');
    expect(gated.code).toBe(4);
    expect(gated.out).toContain('To pay:    at least $0.000773 (1 item unpriced)');
    expect(gated.out).toContain('Budget:    $5.00 — FAILS: 1 item(s) unpriced (--allow-unpriced to run them under per-job reservations)');
    expect(gated.err).toBe('deflow: unpriced: 1 item(s) have no price, so the cost cannot be shown to stay within $5 (--allow-unpriced runs them under per-job reservations)\n');
    const allowed = await quote('--max-cost', '5', '--allow-unpriced', '--format', 'json');
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.out)).toMatchObject({ verdict: 'within', allow_unpriced: true, total: { unknown_items: 1 } });
    // Without a budget there is no gate: the quote says the total is a lower bound and exits 0.
    expect((await quote()).code).toBe(0);
    expect(emulator.stats().submissions).toBe(0);
  });

  it('exits 1 naming the cause when prices cannot be obtained, and never says "within"', async () => {
    const emulator = await useEmulator();
    const { quote, dir } = await setup(emulator);
    await emulator.close();
    const down = await quote('--max-cost', '5', '--no-quote-cache', '--output', 'quote.json');
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/\ndeflow: cannot price the workflow: the service could not be reached \(POST \/api\/v2\/audio\/(transcriptions|speech)\/price: .*ECONNREFUSED.*\); no budget verdict was reached\n$/);
    expect(down.out).toContain('Budget:    $5.00 — NOT CHECKED: prices could not be obtained');
    expect(down.out).not.toMatch(/within|enough/);
    const json = JSON.parse(await readFile(join(dir, 'quote.json'), 'utf8'));
    expect(json).toMatchObject({ verdict: 'unavailable', over_budget: false, prices_unavailable: { code: 'E_NETWORK' } });
  });

  it('exits 1 when the key is refused or the price pool is exhausted for the day', async () => {
    const emulator = await useEmulator({ config: { rate_limits: { quote: { rpm: 100, rpd: 2 } } } });
    const { quote, dir } = await setup(emulator);
    const pool = await quote('--no-quote-cache');
    expect(pool.code).toBe(1);
    expect(pool.err).toMatch(/deflow: cannot price the workflow: the price-request pool is exhausted for the day/);
    const io = createFakeCliIO(dir);
    Object.assign(io.env, { DEAPI_API_KEY: 'nope|not-a-key', DEAPI_BASE_URL: emulator.url });
    const code = await runCli(['quote', 'dub.yaml', '--no-quote-cache'], io);
    expect(code).toBe(1);
    expect(io.stderrText()).toMatch(/deflow: cannot price the workflow: the service refused the key/);
  });

  it('exits 2 for an invalid workflow or option, sending nothing', async () => {
    const emulator = await useEmulator();
    const { quote } = await setup(emulator, WORKFLOW.replace('model: Kokoro', 'model: Kokoro, speling: 1'));
    const invalid = await quote();
    expect(invalid.code).toBe(2);
    expect(invalid.err).toMatch(/^dub\.yaml:\d+:\d+: .*speling/);
    expect(invalid.out).toBe('');
    const badFormat = await quote('--format', 'xml');
    expect(badFormat.code).toBe(2);
    expect(badFormat.err).toBe('deflow: --format: expected table, json, markdown, got "xml"\n');
    expect(emulator.stats().quotes).toBe(0);
  });

  it('reuses cached price answers on a second quote, unless --no-quote-cache', async () => {
    const emulator = await useEmulator();
    const { quote, dir } = await setup(emulator);
    const first = JSON.parse((await quote('--format', 'json')).out);
    expect(first.price_requests).toBeGreaterThan(0);
    expect(existsSync(join(dir, '.deflow', 'quotes.json'))).toBe(true);
    const second = JSON.parse((await quote('--format', 'json')).out);
    expect(second.price_requests).toBe(0);
    expect(second.total).toEqual(first.total);
    const uncached = JSON.parse((await quote('--format', 'json', '--no-quote-cache')).out);
    expect(uncached.price_requests).toBe(first.price_requests);
    const elsewhere = JSON.parse((await quote('--format', 'json', '--state-dir', 'other-state')).out);
    expect(elsewhere.price_requests).toBe(first.price_requests);
    expect(existsSync(join(dir, 'other-state', 'quotes.json'))).toBe(true);
  });

  it('--compare-to shows the change per step and in total against an earlier JSON quote', async () => {
    const emulator = await useEmulator();
    const { quote, dir } = await setup(emulator);
    expect((await quote('--output', 'before.json')).code).toBe(0);
    const before = JSON.parse(await readFile(join(dir, 'before.json'), 'utf8'));
    expect(before.format_version).toBe(2);
    await writeFile(join(dir, 'episodes', 'd.mp3'), makeMp3(300));
    const after = await quote('--compare-to', 'before.json');
    expect(after.code).toBe(0);
    expect(after.out).toMatch(/\nChange against before\.json:\n {2}STEP\s+BEFORE\s+AFTER\s+CHANGE\n {2}transcribe\s+\$0\.00313\s+\$0\.00729\s+\+\$0\.00417 \(\+133\.\d+%\)\n {2}speak\s+/);
    const json = JSON.parse((await quote('--compare-to', 'before.json', '--format', 'json')).out);
    expect(json.comparison.total.change).toBeGreaterThan(0.004);
    const missing = await quote('--compare-to', 'nope.json');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope\.json: cannot read the earlier quote: ENOENT/);
  });

  // The emulator answers 422 for diarization on a model without it (docs/deapi-contract.md), a
  // rule validate does not know: only the service's answer tells the quote.
  const DIARIZE = `version: 1
name: dub
steps:
  transcribe:
    task: audio.transcribe
    for_each: { items: [{ path: episodes/a.mp3, d: true }, { path: episodes/b.mp3, d: false }, { path: episodes/c.mp3, d: true }] }
    with: { source_file: "\${{ item.path }}", model: WhisperLargeV3, include_ts: false, diarize: "\${{ item.d }}" }
`;

  it('exits 2 naming each item whose price request the service refuses (422), also when only some are', async () => {
    const emulator = await useEmulator();
    const { quote } = await setup(emulator, DIARIZE);
    const { code, out, err } = await quote('--format', 'json', '--no-quote-cache');
    expect(err.split('\n')).toEqual([
      'deflow: transcribe[0] episodes/a.mp3: the service refuses it (422): The selected model does not support diarization.',
      'deflow: transcribe[2] episodes/c.mp3: the service refuses it (422): The selected model does not support diarization.',
      'deflow: 2 item(s) would be refused when submitted (the price twin answered 422): fix the workflow or its items; nothing was submitted',
      '',
    ]);
    expect(code).toBe(2);
    const items = JSON.parse(out).steps[0].quoted_items;
    expect(items.map((i: { method: string; refused?: string }) => [i.method, i.refused ?? null])).toEqual([
      ['unknown', 'The selected model does not support diarization.'],
      ['exact', null],
      ['unknown', 'The selected model does not support diarization.'],
    ]);
    // Under a budget too: the refusal, not the budget, decides (exit 2, not 4 or 0).
    expect((await quote('--max-cost', '5', '--allow-unpriced', '--no-quote-cache')).code).toBe(2);
    expect(emulator.stats().submissions).toBe(0);
  });
});
