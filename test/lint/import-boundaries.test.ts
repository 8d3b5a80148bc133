import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// Lints source text as if it lived at a path under src/, with the project's own
// eslint.config.js: the house rules of the README's "Layout" section must fire. The file does
// not exist, so type information is switched off (the boundary rule needs none).
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: [tseslint.configs.disableTypeChecked, { languageOptions: { parserOptions: { projectService: false } } }],
});

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries (eslint.config.js)', () => {
  it('refuses an engine → cli import', async () => {
    const messages = await restrictedImports('src/engine/run/boundary-fixture.ts', "import { EXIT } from '../../cli/main.js';\nexport const code = EXIT;\n");
    expect(messages).toEqual([expect.stringContaining('engine/ may not import cli/')]);
  });

  it('refuses report → cli, workflow → report, emulator → client and service → common', async () => {
    expect(await restrictedImports('src/report/boundary-fixture.ts', "export { runCli } from '../cli/main.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/workflow/format/boundary-fixture.ts', "export { createReporters } from '../../report/index.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/emulator/boundary-fixture.ts', "export { DeapiClient } from '../client/index.js';\n")).toHaveLength(1);
    expect(await restrictedImports('src/service/boundary-fixture.ts', "export { systemClock } from '../common/index.js';\n")).toHaveLength(1);
  });

  it('refuses a deep import into another layer or another engine role folder', async () => {
    expect(await restrictedImports('src/engine/run/boundary-fixture.ts', "export { DeapiClient } from '../../client/deapi-client.js';\n")).toEqual([
      expect.stringContaining('import client/ through its index.ts'),
    ]);
    expect(await restrictedImports('src/engine/run/boundary-fixture.ts', "export { quoteRun } from '../quote/quote.js';\n")).toEqual([
      expect.stringContaining('import engine/quote/ through its index.ts'),
    ]);
  });

  it('allows imports through a folder index and within a folder', async () => {
    expect(await restrictedImports('src/engine/run/boundary-fixture.ts', "export { DeapiClient } from '../../client/index.js';\nexport { quoteRun } from '../quote/index.js';\nexport { Scheduler } from './scheduler.js';\n")).toEqual([]);
    expect(await restrictedImports('src/cli/boundary-fixture.ts', "export { runOpened } from '../engine/index.js';\nexport { createReporters } from '../report/index.js';\n")).toEqual([]);
  });
});
