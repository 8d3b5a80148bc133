import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// Things src spells one way only (eslint.config.js, HOUSE_SYNTAX): a violation planted in a
// copy of a real source file must fail the project's own lint configuration (its syntax rules
// need no type information, so it is turned off: the test stays fast).
const linter = new ESLint({
  cwd: process.cwd(),
  overrideConfig: [tseslint.configs.disableTypeChecked, { languageOptions: { parserOptions: { projectService: false } } }],
});

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath: file });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

/** The real file's text with `code` appended. */
function planted(file: string, code: string): string {
  return `${readFileSync(file, 'utf8')}\n${code}\n`;
}

describe('house syntax rules (eslint.config.js)', { timeout: 60_000 }, () => {
  const file = 'src/engine/run/job-poll.ts';

  it('passes the real file as it is', async () => {
    expect(await restricted(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it("refuses comparing an error's code through a cast", async () => {
    const messages = await restricted(file, planted(file, "export const isTimeout = (error: unknown): boolean => (error as { code?: string }).code === 'E_JOB_TIMEOUT';"));
    expect(messages).toEqual([expect.stringContaining("isDeflowError(error, 'E_…')")]);
  });

  it('refuses money rounded by hand outside src/common/money.ts', async () => {
    const report = 'src/report/files/run-report.ts';
    expect(await restricted(report, readFileSync(report, 'utf8'))).toEqual([]);
    const messages = await restricted(report, planted(report, 'export const cents = (usd: number): number => Math.round(usd * 1e6) / 1_000_000;'));
    expect(messages).toEqual([expect.stringContaining('src/common/money.ts'), expect.stringContaining('src/common/money.ts')]);
    const money = 'src/common/money.ts';
    expect(await restricted(money, readFileSync(money, 'utf8'))).toEqual([]);
  });
});
