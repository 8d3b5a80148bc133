/**
 * The distributed mode's command-line surface: what `deflow run --queue`, `deflow worker` and
 * `deflow status --queue` refuse, and how (exit 2 for usage, exit 1 for an unreachable Redis).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { CHAIN, clips } from '../engine/journal/durable-helpers.js';
import { useWorkspace } from '../engine/run-helpers.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';

async function cli(dir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const io = createFakeCliIO(dir);
  Object.assign(io.env, { DEAPI_API_KEY: 'a-test-key-0123456789', DEAPI_BASE_URL: 'http://127.0.0.1:9', ...env });
  const code = await runCli(args, io);
  return { code, stderr: io.stderrText() };
}

describe('distributed mode: usage', () => {
  it('refuses a queue URL of another scheme, naming the forms it takes', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const { code, stderr } = await cli(dir, ['run', 'workflow.yaml', '--queue', 'ftp://example.org/1']);
    expect(code).toBe(2);
    expect(stderr).toContain('--queue ftp://example.org/1: expected redis://HOST:PORT[/DB], rediss://HOST:PORT[/DB] or unix:///path/to/redis.sock (unknown scheme ftp:)');
  });

  it('never shows the password of a queue URL', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const { code, stderr } = await cli(dir, ['worker', '--queue', 'redis://:s3cret-pass@127.0.0.1:1/x']);
    expect(code).toBe(2);
    expect(stderr).toContain('redis://:***@127.0.0.1:1/x');
    expect(stderr).not.toContain('s3cret-pass');
  });

  it('refuses --emulator with --queue: workers cannot reach an in-process emulator', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': CHAIN, ...clips(1) });
    const { code, stderr } = await cli(dir, ['run', 'workflow.yaml', '--queue', 'redis://127.0.0.1:1', '--emulator']);
    expect(code).toBe(2);
    expect(stderr).toContain('--emulator: not with --queue');
  });

  it('refuses a worker without --queue', async () => {
    const dir = await useWorkspace({});
    const { code, stderr } = await cli(dir, ['worker']);
    expect(code).toBe(2);
    expect(stderr).toContain('--queue: expected the Redis URL of the queue');
  });

  it('says which Redis it cannot reach (exit 1)', async () => {
    const dir = await useWorkspace({});
    const { code, stderr } = await cli(dir, ['worker', '--queue', 'redis://127.0.0.1:1']);
    expect(code).toBe(1);
    expect(stderr).toContain('redis://127.0.0.1:1: cannot connect to Redis (rate governor)');
  });
});
