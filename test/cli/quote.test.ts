import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { makeMp3 } from '../../src/emulator/media/index.js';
import type { RunningEmulator } from '../../src/emulator/start-emulator.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

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
    expect(json).toMatchObject({ format_version: 1, workflow: 'dub.yaml', currency: 'USD', balance: 100, max_cost: null, over_budget: false, over_balance: false });
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
    expect(table.out).toMatch(/^Quote for dub\.yaml\n\nSTEP {8}TASK {14}MODEL {11}ITEMS {2}UNIT PRICE/);
    expect(table.out).toMatch(/\nPrice requests sent: \d+\n/);
    const md = await quote('--format', 'markdown', '--no-quote-cache');
    expect(md.code).toBe(0);
    expect(md.out).toMatch(/^## ✅ Quote: `dub\.yaml`\n\n\*\*Total: \$0\.\d{4} \(\$0\.\d{4}–\$0\.\d{4}\)\*\* · /);
    expect(md.out).toContain('| `speak` | `audio.speech` | `Kokoro` | 3 |');
  });

  it('exits 4 when the quote is above --max-cost, budget.max_cost or the balance', async () => {
    const emulator = await useEmulator();
    const { quote, dir } = await setup(emulator);
    const over = await quote('--max-cost', '0.001', '--format', 'json');
    expect(over.code).toBe(4);
    expect(JSON.parse(over.out)).toMatchObject({ max_cost: 0.001, over_budget: true });
    await writeFile(join(dir, 'dub.yaml'), WORKFLOW.replace('steps:\n', 'budget: { max_cost: 0.0001 }\nsteps:\n'));
    const budget = await quote();
    expect(budget.code).toBe(4);
    expect(budget.out).toMatch(/\nBudget: {4}\$0\.0001 — OVER by \$0\.\d{4}\n/);
    expect((await quote('--max-cost', '10')).code).toBe(0);

    const poor = await useEmulator({ config: { balance: 0.001 } });
    const broke = await (await setup(poor)).quote();
    expect(broke.code).toBe(4);
    expect(broke.out).toMatch(/\nBalance: {3}\$0\.0010 — NOT enough for \$0\.\d{4}\n/);
    expect(emulator.stats().submissions + poor.stats().submissions).toBe(0);
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
    expect(before.format_version).toBe(1);
    await writeFile(join(dir, 'episodes', 'd.mp3'), makeMp3(300));
    const after = await quote('--compare-to', 'before.json');
    expect(after.code).toBe(0);
    expect(after.out).toMatch(/\nChange against before\.json:\n {2}STEP\s+BEFORE\s+AFTER\s+CHANGE\n {2}transcribe\s+\$0\.0031\s+\$0\.0073\s+\+\$0\.0042 \(\+133\.\d+%\)\n {2}speak\s+/);
    const json = JSON.parse((await quote('--compare-to', 'before.json', '--format', 'json')).out);
    expect(json.comparison.total.change).toBeGreaterThan(0.004);
    const missing = await quote('--compare-to', 'nope.json');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/nope\.json: cannot read the earlier quote: ENOENT/);
  });
});
