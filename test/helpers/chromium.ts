/**
 * Debian's Chromium driven by playwright-core, for tests that render pages in a real browser.
 * Without the browser the test fails and names the command that installs it; the files that
 * use it are skipped, saying so, unless DEFLOW_TEST_DEPS=require (system-deps.ts).
 */
import { type Browser, chromium } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { systemDep, systemDepHint } from './system-deps.js';

/** A headless Chromium (`$CHROMIUM_PATH`, else `chromium` on PATH or `/usr/bin/chromium`) closed when the test ends. */
export async function useChromium(): Promise<Browser> {
  const executablePath = systemDep('chromium');
  if (executablePath === undefined) {
    throw new Error(`no Chromium here: install it with \`${systemDepHint('chromium')}\` (or set CHROMIUM_PATH)`);
  }
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  onTestFinished(() => browser.close());
  return browser;
}
