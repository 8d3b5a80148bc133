// The system packages some tests need beyond node_modules, and what to do when one is missing.
// Run before `npm test` (its `pretest`) and by .ci/run (`--require`):
//   node scripts/ensure-test-deps.mjs [--require] [--quiet]
// It installs what is missing when it can (as root, or with passwordless sudo in CI, through
// apt-get: Debian and Ubuntu), and otherwise prints exactly what to install. Without
// `--require` it then exits 0 and the tests that need a missing package are skipped, each file
// saying why (test/helpers/system-deps.ts); with `--require` (CI) it exits 1, and so do those
// tests: CI always runs them.
// DEFLOW_TEST_DEPS=require has the tests fail rather than skip (set by .ci/run);
// DEFLOW_TEST_DEPS_INSTALL=never never installs.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Each package: how it is found, its Debian package and Homebrew formula, and the tests that
 * need it. `env` names the variable that points at it instead of PATH.
 */
export const TEST_DEPS = [
  { name: 'redis-server', command: 'redis-server', env: 'REDIS_SERVER', apt: 'redis-server', brew: 'redis', tests: 'the queue tests' },
  { name: 'chromium', command: 'chromium', env: 'CHROMIUM_PATH', fallback: '/usr/bin/chromium', apt: 'chromium', brew: '--cask chromium', tests: "the HTML report's browser tests" },
  { name: 'prometheus', command: 'prometheus', env: 'PROMETHEUS_PATH', apt: 'prometheus', brew: 'prometheus', tests: 'the metrics scrape tests' },
  { name: 'prometheus-pushgateway', command: 'prometheus-pushgateway', env: 'PUSHGATEWAY_PATH', apt: 'prometheus-pushgateway', brew: 'pushgateway', tests: 'the metrics push tests' },
];

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command, env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/** Where `dep` is installed (its executable), or undefined. */
export function locateTestDep(dep, env = process.env) {
  const named = env[dep.env];
  if (named !== undefined && named !== '') return executable(named) ? named : undefined;
  return onPath(dep.command, env) ?? (dep.fallback !== undefined && executable(dep.fallback) ? dep.fallback : undefined);
}

/** The packages not installed here. */
export function missingTestDeps(env = process.env) {
  return TEST_DEPS.filter((dep) => locateTestDep(dep, env) === undefined);
}

/** The commands that install `deps` (Debian/Ubuntu, then macOS). */
export function installHint(deps) {
  const brew = deps.map((dep) => `brew install ${dep.brew}`).join(' && ');
  return `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${deps.map((dep) => dep.apt).join(' ')}   (macOS: ${brew})`;
}

/** Whether the tests that need `dep` fail (CI) rather than skip when it is missing. */
export function testDepsRequired(env = process.env) {
  return env.DEFLOW_TEST_DEPS === 'require';
}

/** How this process can run apt-get as root: [] as root, ['sudo', '-n'] with passwordless sudo in CI, or undefined. */
function asRoot(env) {
  if (env.DEFLOW_TEST_DEPS_INSTALL === 'never') return undefined;
  if (onPath('apt-get', env) === undefined) return undefined;
  if (process.getuid?.() === 0) return [];
  if (env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && onPath('sudo', env) !== undefined) {
    if (spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', env }).status === 0) return ['sudo', '-n'];
  }
  return undefined;
}

function apt(prefix, args, env) {
  const [command, ...rest] = [...prefix, 'apt-get', ...args];
  const run = spawnSync(command, rest, { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: run.error === undefined && run.status === 0, output: `${run.stdout ?? ''}${run.stderr ?? ''}${run.error?.message ?? ''}` };
}

/**
 * Installs what is missing when it can, says what it did on `log`, and returns the packages
 * still missing.
 */
export function ensureTestDeps({ env = process.env, log = (line) => process.stderr.write(`${line}\n`), quiet = false } = {}) {
  const missing = missingTestDeps(env);
  if (missing.length === 0) {
    if (!quiet) log(`test dependencies: ${TEST_DEPS.map((dep) => dep.name).join(', ')} installed`);
    return [];
  }
  const prefix = asRoot(env);
  if (prefix !== undefined) {
    const names = missing.map((dep) => dep.apt);
    log(`test dependencies: installing ${names.join(', ')} (apt-get install -y --no-install-recommends ${names.join(' ')})`);
    const update = apt(prefix, ['update', '-qq'], env);
    const install = update.ok ? apt(prefix, ['install', '-y', '-qq', '--no-install-recommends', ...names], env) : update;
    if (!install.ok) log(`test dependencies: apt-get failed:\n${install.output.trim().split('\n').slice(-10).join('\n')}`);
  }
  const still = missingTestDeps(env);
  if (still.length > 0) {
    log(`test dependencies: not installed: ${still.map((dep) => `${dep.name}, for ${dep.tests}`).join('; ')}`);
    log(`  install with: ${installHint(still)}`);
  }
  return still;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const required = args.includes('--require');
  const still = ensureTestDeps({ quiet: args.includes('--quiet') });
  if (still.length > 0) {
    if (required) {
      process.stderr.write('test dependencies: required here (--require): the tests above would fail without them\n');
      process.exit(1);
    }
    process.stderr.write(`  until then those tests are skipped, each saying so (set DEFLOW_TEST_DEPS=require to have them fail instead)\n`);
  }
}
