import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runDeflow } from '../client/cli-run.js';
import { useEmulator } from '../client/support.js';

describe('deflow models', () => {
  test('--emulator prints a table of slug, name, tasks and key limits', async () => {
    const run = await runDeflow(['models', '--emulator']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+TASKS\s+KEY LIMITS$/);
    const flux = lines.find((l) => l.startsWith('Flux1schnell '));
    expect(flux).toContain('FLUX.1 Schnell 12B NF4');
    expect(flux).toContain('image.generate');
    expect(flux).toContain('width 256-2048');
    expect(flux).toContain('steps 1-10');
  });

  test('--task keeps the models that serve it; --json prints them', async () => {
    const run = await runDeflow(['models', '--emulator', '--task', 'audio.transcribe', '--json']);
    expect(run.code).toBe(0);
    const models = JSON.parse(run.stdout) as { slug: string; inference_types: string[] }[];
    expect(models.map((m) => m.slug).sort()).toEqual(['WhisperLargeV3', 'WhisperLargeV3Ct2']);
  });

  test('an unknown --task is a usage error that lists the tasks', async () => {
    const run = await runDeflow(['models', '--emulator', '--task', 'image.paint']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--task: expected one of image.generate,');
    expect(run.stderr).toContain('got "image.paint"');
  });

  test('talks to DEAPI_BASE_URL with the key from DEAPI_API_KEY', async () => {
    const emulator = await useEmulator();
    const run = await runDeflow(['models', '--json'], { env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: emulator.keys.api } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).length).toBeGreaterThan(10);
  });

  test('reads the key from --api-key-file, a path or - for standard input', async () => {
    const emulator = await useEmulator();
    const dir = await mkdtemp(join(tmpdir(), 'deflow-key-'));
    try {
      await writeFile(join(dir, 'key.txt'), `${emulator.keys.api}\n`);
      const env = { DEAPI_BASE_URL: emulator.url };
      expect((await runDeflow(['models', '--api-key-file', 'key.txt'], { env, cwd: dir })).code).toBe(0);
      expect((await runDeflow(['models', '--api-key-file', '-'], { env, stdin: `${emulator.keys.api}\n` })).code).toBe(0);
      const missing = await runDeflow(['models', '--api-key-file', 'nope.txt'], { env, cwd: dir });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('--api-key-file nope.txt: cannot read it (ENOENT)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('without a key it says how to set one', async () => {
    const run = await runDeflow(['models']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no API key: set $DEAPI_API_KEY, or pass --api-key-file PATH');
  });

  test('refuses a key given as a flag value', async () => {
    const run = await runDeflow(['models', '--api-key', 'sk_in_history']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--api-key is not accepted');
    expect(run.stderr).not.toContain('sk_in_history');
  });

  test('a refused key exits 3 with the request and the status', async () => {
    const emulator = await useEmulator();
    const run = await runDeflow(['models'], { env: { DEAPI_BASE_URL: emulator.url, DEAPI_API_KEY: 'wrong-key-0123456789' } });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('deflow: GET /api/v2/models: 401 Unauthenticated.\n');
  });
});
