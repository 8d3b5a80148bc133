/**
 * scripts/ensure-test-deps.mjs, run as `npm test` runs it (its `pretest`) and as .ci/run runs
 * it (`--require`), on a PATH that holds none of the system packages: it installs them through
 * apt-get when it can (a stand-in apt-get that records its arguments and installs stubs), and
 * otherwise names the exact install command; the test files that need a missing package skip,
 * saying so, or fail where DEFLOW_TEST_DEPS=require.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { skipWithout } from '../helpers/system-deps.js';

const root = new URL('../../', import.meta.url).pathname;
const script = join(root, 'scripts', 'ensure-test-deps.mjs');
const PACKAGES = ['redis-server', 'chromium', 'prometheus', 'prometheus-pushgateway'];

/** A folder for a PATH of its own, with `files` (executable). */
function binDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'deflow-test-deps-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  put(dir, files);
  return dir;
}

function put(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
}

/** Runs the script with PATH = `dir` only (Chromium looked for there too), as root or in CI with passwordless sudo. */
function ensure(dir: string, args: string[] = [], env: Record<string, string> = {}): { code: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [script, ...args], {
    encoding: 'utf8',
    env: { PATH: dir, CHROMIUM_PATH: join(dir, 'chromium'), CI: '1', ...env },
  });
  return { code: run.status, stderr: run.stderr };
}

/** An apt-get that logs its arguments and, on install, puts a stub of each package beside itself; sudo -n runs its command. */
const FAKE_APT = (dir: string, fail = false) => ({
  'apt-get': `#!/bin/sh\necho "$@" >> "${dir}/apt.log"\n${fail ? 'echo "E: Unable to locate package redis-server" >&2; exit 100\n' : ''}if [ "$1" = install ]; then for p in "$@"; do case "$p" in -*|install) ;; *) printf '#!/bin/sh\\n' > "${dir}/$p"; /bin/chmod +x "${dir}/$p";; esac; done; fi\n`,
  sudo: '#!/bin/sh\nshift\nexec "$@"\n',
});

describe('scripts/ensure-test-deps.mjs', () => {
  it('installs every missing package with apt-get in one go, and then finds them all', () => {
    const dir = binDir();
    put(dir, FAKE_APT(dir));
    const run = ensure(dir);
    expect(run.stderr).toContain('installing redis-server, chromium, prometheus, prometheus-pushgateway');
    expect(run.code).toBe(0);
    expect(readFileSync(join(dir, 'apt.log'), 'utf8').trim().split('\n')).toEqual(['update -qq', `install -y -qq --no-install-recommends ${PACKAGES.join(' ')}`]);
    for (const name of PACKAGES) expect(existsSync(join(dir, name)), name).toBe(true);
    expect(ensure(dir).stderr).toContain('redis-server, chromium, prometheus, prometheus-pushgateway installed');
  });

  it('installs only what is missing', () => {
    const dir = binDir({ 'redis-server': '#!/bin/sh\n', chromium: '#!/bin/sh\n' });
    put(dir, FAKE_APT(dir));
    expect(ensure(dir).code).toBe(0);
    expect(readFileSync(join(dir, 'apt.log'), 'utf8')).toContain('--no-install-recommends prometheus prometheus-pushgateway\n');
  });

  it('without apt-get names the exact install command and exits 0; with --require (CI) exits 1', () => {
    const dir = binDir({ 'redis-server': '#!/bin/sh\n' });
    const run = ensure(dir);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('not installed: chromium, for the HTML report');
    expect(run.stderr).toContain('install with: sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium prometheus prometheus-pushgateway');
    expect(run.stderr).toContain('brew install --cask chromium');
    expect(run.stderr).toContain('those tests are skipped');
    const required = ensure(dir, ['--require']);
    expect(required.code).toBe(1);
    expect(required.stderr).toContain('install with: sudo apt-get');
  });

  it('when apt-get fails says why and what to install, and --require exits 1', () => {
    const dir = binDir();
    put(dir, FAKE_APT(dir, true));
    const run = ensure(dir, ['--require']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('E: Unable to locate package redis-server');
    expect(run.stderr).toContain(`install with: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${PACKAGES.join(' ')}`);
  });

  it('as a user who is not root, with apt-get there but no sudo: installs nothing, names the exact install command for redis-server and Chromium, and exits 0 (those tests skip)', () => {
    const dir = binDir();
    chmodSync(dir, 0o777);
    put(dir, FAKE_APT(dir));
    // This process may be root (a container): the script then runs as nobody, as a developer's shell would.
    const asUser = process.getuid?.() === 0 ? ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => existsSync(file)) : undefined;
    if (process.getuid?.() === 0 && asUser === undefined) throw new Error('running as root without setpriv: cannot run the script as a user who is not root');
    const command = asUser === undefined ? [process.execPath, script] : [asUser, '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, script];
    const run = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8', env: { PATH: dir, CHROMIUM_PATH: join(dir, 'chromium'), HOME: dir } });
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(join(dir, 'apt.log'))).toBe(false);
    expect(run.stderr).toContain('test dependencies: not installed: redis-server, for the queue tests; chromium, for the HTML report');
    expect(run.stderr).toContain(`  install with: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${PACKAGES.join(' ')}   (macOS: brew install redis && brew install --cask chromium && brew install prometheus && brew install pushgateway)`);
    expect(run.stderr).toContain('until then those tests are skipped, each saying so');
  });

  it('DEFLOW_TEST_DEPS_INSTALL=never installs nothing', () => {
    const dir = binDir();
    put(dir, FAKE_APT(dir));
    expect(ensure(dir, [], { DEFLOW_TEST_DEPS_INSTALL: 'never' }).stderr).toContain('install with:');
    expect(existsSync(join(dir, 'apt.log'))).toBe(false);
  });

  it('runs before `npm test` and `npm run test:fast`, and .ci/run requires it', () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['pretest']).toBe('node scripts/ensure-test-deps.mjs');
    expect(scripts['pretest:fast']).toBe('node scripts/ensure-test-deps.mjs');
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    expect(ci).toContain('node scripts/ensure-test-deps.mjs --require');
    expect(ci).toMatch(/export DEFLOW_TEST_DEPS=require/);
  });
});

describe('a test file that needs a missing package', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('is skipped, naming the package and its install command', () => {
    vi.stubEnv('REDIS_SERVER', '/nonexistent/redis-server');
    vi.stubEnv('DEFLOW_TEST_DEPS', '');
    const said: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => (said.push(String(text)), true));
    expect(skipWithout('redis-server')).toBe(true);
    expect(said.join('')).toContain('skipped: the queue tests need redis-server, which is not installed here: sudo apt-get update && sudo apt-get install -y --no-install-recommends redis-server');
  });

  it('runs (and fails, naming the command) where DEFLOW_TEST_DEPS=require', () => {
    vi.stubEnv('REDIS_SERVER', '/nonexistent/redis-server');
    vi.stubEnv('DEFLOW_TEST_DEPS', 'require');
    expect(skipWithout('redis-server')).toBe(false);
  });

  it('runs where the package is installed', () => {
    vi.stubEnv('REDIS_SERVER', process.execPath);
    vi.stubEnv('DEFLOW_TEST_DEPS', '');
    expect(skipWithout('redis-server')).toBe(false);
  });
});
