/**
 * The system packages a test file needs beyond node_modules (scripts/ensure-test-deps.mjs
 * installs them before `npm test` where it can). A file whose package is missing is skipped,
 * saying which package and how to install it — never a red test that is really a missing
 * package — except where DEFLOW_TEST_DEPS=require (.ci/run): there it runs and fails, naming
 * the install command, so CI always runs it.
 */
import { installHint, locateTestDep, TEST_DEPS, testDepsRequired, type TestDep } from '../../scripts/ensure-test-deps.mjs';

export type SystemDepName = 'redis-server' | 'chromium' | 'prometheus' | 'prometheus-pushgateway';

function dep(name: SystemDepName): TestDep {
  const found = TEST_DEPS.find((one) => one.name === name);
  if (found === undefined) throw new Error(`no test dependency named ${name}`);
  return found;
}

/** The executable of `name`, or undefined when it is not installed. */
export function systemDep(name: SystemDepName): string | undefined {
  return locateTestDep(dep(name));
}

/** The command that installs `name`. */
export function systemDepHint(name: SystemDepName): string {
  return installHint([dep(name)]);
}

/**
 * True when the tests that need `name` are to be skipped here (it is missing and not
 * required); says so on stderr once per file. Use as `describe.skipIf(skipWithout('chromium'))`.
 */
export function skipWithout(name: SystemDepName): boolean {
  if (systemDep(name) !== undefined || testDepsRequired()) return false;
  process.stderr.write(`skipped: ${dep(name).tests} need ${name}, which is not installed here: ${systemDepHint(name)}\n`);
  return true;
}
