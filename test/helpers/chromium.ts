/**
 * Debian's Chromium driven by playwright-core, for tests that render pages in a real browser.
 * No silent skip: without the browser the test fails and names the command that installs it.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { onTestFinished } from 'vitest';

/** `$CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** A headless Chromium closed when the test ends. */
export async function useChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install it with \`apt-get update && apt-get install -y chromium\` (or set CHROMIUM_PATH)`);
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  onTestFinished(() => browser.close());
  return browser;
}
