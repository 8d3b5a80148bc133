/**
 * An items file is read as a stream and its 1,000,000-item cap is enforced while reading, with
 * the built CLI (`node dist/bin/deflow.js validate`): a file one item over the cap and a file of
 * 64 M lines (under the 256 MiB byte cap) are refused at the first item past the cap, located at
 * its line, exit 2; a file at the cap is validated, as text lines, JSON lines of records and a
 * CSV. Each child's peak RSS (its own
 * `process.resourceUsage().maxRSS`, written at exit by a preloaded module) stays under 300 MB.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltCli, buildCliAside } from '../helpers/built-cli.js';

const CAP = 1_000_000;
const PEAK_RSS_LIMIT_MB = 300;

let cli: BuiltCli | undefined;
let dir: string;

beforeAll(async () => {
  cli = await buildCliAside('deflow-items-cap-build-');
  dir = await mkdtemp(join(tmpdir(), 'deflow-items-cap-'));
  await writeFile(join(dir, 'peak-rss.mjs'), "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));\n");
  const lines = (n: number): string => Array.from({ length: n }, (_, i) => `a cat number ${i}\n`).join('');
  await writeFile(join(dir, 'at-cap.txt'), lines(CAP));
  await writeFile(join(dir, 'at-cap-jsonl.jsonl'), Array.from({ length: CAP }, (_, i) => `${JSON.stringify({ prompt: `a cat number ${i}` })}\n`).join(''));
  await writeFile(join(dir, 'at-cap-csv.csv'), `prompt\n${lines(CAP)}`);
  await writeFile(join(dir, 'over-cap.txt'), lines(CAP + 1));
  // 64 Mi lines of one letter: 128 MiB, under the byte cap.
  await writeFile(join(dir, 'many-lines.txt'), Buffer.alloc(128 * 1024 * 1024, 'a\n'));
  for (const [name, file] of [['at-cap', 'at-cap.txt'], ['over-cap', 'over-cap.txt'], ['many-lines', 'many-lines.txt'], ['at-cap-jsonl', 'at-cap-jsonl.jsonl'], ['at-cap-csv', 'at-cap-csv.csv']] as const) {
    // A text file's item is its line; the others' are records with a `prompt` field.
    const field = file.endsWith('.txt') ? 'item.value' : 'item.prompt';
    await writeFile(
      join(dir, `${name}.yaml`),
      ['version: 1', `name: ${name}`, 'steps:', '  draw:', '    task: image.generate', `    for_each: { file: ${file} }`, `    with: { prompt: "\${{ ${field} }}", model: Flux1schnell, width: 512, height: 512, steps: 4, seed: 1 }`, ''].join('\n'),
    );
  }
}, 300_000);

afterAll(async () => {
  await cli?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Validation {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly peakRssMb: number;
}

function validate(workflow: string, ...flags: string[]): Promise<Validation> {
  const rssFile = join(dir, `${workflow}-${flags.join('')}.rss`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', join(dir, 'peak-rss.mjs'), cli!.main, 'validate', `${workflow}.yaml`, '--offline', ...flags],
      { cwd: dir, env: { ...process.env, PEAK_RSS_FILE: rssFile, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        try {
          resolve({ code, stdout, stderr, peakRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024 });
        } catch (failure) {
          reject(failure instanceof Error ? failure : new Error(String(failure)));
        }
      },
    );
  });
}

const refusal = (file: string): string =>
  `${file}:${CAP + 1}:1: steps.draw.for_each.file: expected at most ${CAP} items, got more: item ${CAP + 1} is on this line (the file is refused without reading further)`;

describe('items file cap (built CLI)', () => {
  it('refuses a file one item over the cap at that item, coded, exit 2', async () => {
    const text = await validate('over-cap');
    expect(text.code).toBe(2);
    expect(text.stderr.trim()).toBe(refusal('over-cap.txt'));
    const json = await validate('over-cap', '--json');
    expect(json.code).toBe(2);
    expect((JSON.parse(json.stdout) as { errors: unknown[] }).errors).toEqual([
      expect.objectContaining({ file: 'over-cap.txt', line: CAP + 1, col: 1, path: 'steps.draw.for_each.file', code: 'E_WORKFLOW_FOR_EACH' }),
    ]);
  }, 120_000);

  it('refuses a 64 M-line file under the byte cap without reading past the cap', async () => {
    const result = await validate('many-lines');
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(refusal('many-lines.txt'));
    // Reading the whole file would hold 64 M strings (gigabytes): the peak stays small.
    expect(result.peakRssMb).toBeLessThanOrEqual(PEAK_RSS_LIMIT_MB);
  }, 120_000);

  it.each([
    ['text lines', 'at-cap', 'at-cap.txt'],
    ['JSON lines of records', 'at-cap-jsonl', 'at-cap-jsonl.jsonl'],
    ['a CSV', 'at-cap-csv', 'at-cap-csv.csv'],
  ])(`validates %s at the cap within ${PEAK_RSS_LIMIT_MB} MB of peak RSS`, async (_format, workflow, file) => {
    const result = await validate(workflow);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${CAP} items  file ${file}`);
    expect(result.peakRssMb).toBeLessThanOrEqual(PEAK_RSS_LIMIT_MB);
  }, 120_000);
});
