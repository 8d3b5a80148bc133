/**
 * The HTML report rendered in headless Chromium (Debian's, through playwright-core): the demo's
 * report as `run --html` and `deflow report` write it, and a 2,000-job run on the emulator
 * (aggregated lane, window waits, failures). No console error, no request beyond the file
 * itself, the expected lanes and markers present, the page under 5 MB.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { useChromium } from '../helpers/chromium.js';
import { useDemoWorkspace } from '../helpers/demo-workspace.js';
import { useEmulator } from '../helpers/emulator-http.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';
import { skipWithout } from '../helpers/system-deps.js';

/** Skipped, saying so, where chromium is not installed (failing instead in CI). */
const WITHOUT_CHROMIUM = skipWithout('chromium');

const MAX_BYTES = 5 * 1024 * 1024;

async function cli(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = { ...createFakeCliIO(cwd), env: {} };
  const code = await runCli(args, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

/** Opens `file` and returns the page with the console errors and every URL it requested. */
async function open(browser: Browser, file: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') errors.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  return { page, errors, requests };
}

describe.skipIf(WITHOUT_CHROMIUM)('the HTML report in headless Chromium', () => {
  it("renders the demo's run: a lane per job by step, costs quoted vs actual, no console error, nothing fetched", async () => {
    const browser = await useChromium();
    const dir = await useDemoWorkspace();
    const run = await cli(dir, ['run', 'workflows/demo.yaml', '--emulator', '--max-cost', '1', '--html', 'demo.html', '--report', 'run.json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('html: demo.html');
    const runId = (JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')) as { run_id: string }).run_id;
    const again = await cli(dir, ['report', runId, '--html', 'again.html']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^html: again\.html \(run .+, 5 jobs, \d+ KiB\)/);

    for (const file of ['demo.html', 'again.html']) {
      const { page, errors, requests } = await open(browser, join(dir, file));
      expect(errors).toEqual([]);
      expect(requests).toEqual([`file://${join(dir, file)}`]);
      expect(await page.locator('#run-status').textContent()).toBe('done');
      expect(await page.locator('.step-lanes').evaluateAll((els) => els.map((el) => [el.getAttribute('data-step'), el.getAttribute('data-mode')]))).toEqual([
        ['transcribe', 'jobs'],
        ['speak', 'jobs'],
        ['describe', 'jobs'],
      ]);
      expect(await page.locator('.lane.job').count()).toBe(5);
      expect(await page.locator('.lane.job[data-outcome="done"]').count()).toBe(5);
      // Every job drew its queued, submitted and downloading spans and its end.
      for (const phase of ['q', 's', 'd', 'end.done']) expect(await page.locator(`.lane.job rect.${phase}`).count()).toBe(5);
      expect(await page.locator('#costs tbody tr').count()).toBe(3);
      const quoted = await page.locator('#costs tbody tr td:nth-child(4)').allTextContents();
      expect(quoted.every((cell) => cell.startsWith('$'))).toBe(true);
      expect(await page.locator('rect.quoting').count()).toBe(1);
      expect(await page.locator('#failures').textContent()).toContain('No job failed');
      const box = await page.locator('#timeline-svg').boundingBox();
      expect(box?.width).toBeGreaterThan(500);
      await page.close();
    }
  });

  it('renders a 2,000-job run: an aggregated lane, window waits per pool, failures with reasons, under 5 MB', async () => {
    const browser = await useChromium();
    const dir = await useDemoWorkspace();
    await writeFile(join(dir, 'items.txt'), Array.from({ length: 2000 }, (_, i) => `line ${i} to embed`).join('\n'));
    await writeFile(
      join(dir, 'big.yaml'),
      ['version: 1', 'name: big', 'steps:', '  embed:', '    task: text.embed', '    for_each: { file: items.txt }', '    with: { input: "${{ item.value }}", model: Bge_M3_FP16 }', ''].join('\n'),
    );
    await writeFile(join(dir, 'emulator.yaml'), 'time_scale: 400\nbalance: 100\njobs: { fail_rate: 0.01, duration_ms: 2000, jitter: 0.3 }\n');
    const run = await cli(dir, ['run', 'big.yaml', '--emulator', '--emulator-config', 'emulator.yaml', '--html', 'big.html', '--quiet']);
    expect(run.code, run.stderr).toBe(1);
    const size = (await stat(join(dir, 'big.html'))).size;
    expect(size).toBeLessThan(MAX_BYTES);

    const { page, errors, requests } = await open(browser, join(dir, 'big.html'));
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(await page.locator('#run-status').textContent()).toBe('failed');
    expect(await page.locator('.step-lanes[data-step="embed"]').getAttribute('data-mode')).toBe('aggregate');
    expect(await page.locator('.lane.aggregate').count()).toBe(1);
    expect(await page.locator('.lane.job').count()).toBe(0);
    expect(await page.locator('.lane.aggregate polyline.done-line').count()).toBe(1);
    expect(await page.locator('.lane.pool[data-pool="embeddings"]').count()).toBe(1);
    expect(await page.locator('.lane.pool .marker.rate-wait').count()).toBeGreaterThan(0);
    const failures = await page.locator('#failures tbody tr').count();
    expect(failures).toBeGreaterThan(0);
    expect(await page.locator('.lane.aggregate rect.end.failed').count()).toBeGreaterThan(0);
    expect(await page.locator('#failures tbody tr td:nth-child(5)').first().textContent()).toBe('E_JOB_FAILED');
    expect(await page.locator('[data-total="jobs"] b').textContent()).toBe('2000');
    expect(Number(await page.locator('[data-total="failed"] b').textContent())).toBe(failures);
    await page.close();
  });

  it("marks real 429s on the pool's lane: two runs on one account without a shared governor", async () => {
    const browser = await useChromium();
    // Real time, 2-second windows of 8 embeddings: each run alone would pace itself; together they collide.
    const emulator = await useEmulator({ config: { time_scale: 1, balance: 100, rate_limits: { minute_window_s: 2, endpoints: { embeddings: { rpm: 8 } } }, jobs: { duration_ms: 300 } } });
    const dir = await useDemoWorkspace();
    const runs = ['a', 'b'].map(async (name) => {
      await writeFile(join(dir, `${name}.txt`), Array.from({ length: 16 }, (_, i) => `line ${i} of ${name}`).join('\n'));
      await writeFile(
        join(dir, `${name}.yaml`),
        ['version: 1', `name: ${name}`, 'steps:', '  embed:', '    task: text.embed', `    for_each: { file: ${name}.txt }`, '    with: { input: "${{ item.value }}", model: Bge_M3_FP16 }', ''].join('\n'),
      );
      const io = { ...createFakeCliIO(dir), env: { DEAPI_API_KEY: emulator.keys.api, DEAPI_BASE_URL: emulator.url } };
      return runCli(['run', `${name}.yaml`, '--html', `${name}.html`, '--quiet', '--state-dir', `state-${name}`], io);
    });
    expect(await Promise.all(runs)).toEqual([0, 0]);
    let throttles = 0;
    for (const name of ['a', 'b']) {
      const { page, errors } = await open(browser, join(dir, `${name}.html`));
      expect(errors).toEqual([]);
      const markers = await page.locator('.lane.pool[data-pool="embeddings"] .marker.throttled').count();
      expect(Number(await page.locator('[data-total="429s"] b').textContent())).toBe(markers);
      expect(await page.locator('.lane.pool[data-pool="embeddings"] .marker.throttled title').first().textContent().catch(() => '')).toMatch(markers > 0 ? /^embeddings: 429 at .+, Retry-After / : /^$/);
      throttles += markers;
      await page.close();
    }
    // The emulator refused requests with 429, and each one the runs saw is on a page.
    expect(throttles).toBeGreaterThan(0);
  });
});
