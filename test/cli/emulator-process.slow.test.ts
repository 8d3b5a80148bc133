import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';
import { call } from '../helpers/emulator-http.js';

const root = new URL('../../', import.meta.url).pathname;
let cli: BuiltCli | undefined;

beforeAll(async () => {
  // The built CLI is what `npx deflow` runs: the bundled bin, built aside (no other test's dist/ is touched).
  cli = await buildCliAside('deflow-emulator-build-');
}, 180_000);

afterAll(async () => {
  await cli?.remove();
});

describe('the built deflow emulator', () => {
  it('prints its URL, serves requests and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [cli!.main, 'emulator', '--host', '127.0.0.1', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const firstLine = new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
      });
    });
    const line = await firstLine;
    const match = /^deflow emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
    expect(match).not.toBeNull();
    const res = await call({ url: match?.[1] ?? '' }, 'GET', '/api/v2/models');
    expect(res.status).toBe(401);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
