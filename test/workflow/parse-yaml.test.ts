import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateWorkflow } from '../../src/workflow/validate/validate-workflow.js';
import { parseYaml } from '../../src/workflow/yaml/parse-yaml.js';
import { lines, useTempDirs, validateText } from './helpers.js';

const tempDir = useTempDirs();

describe('YAML parsing', () => {
  it('reports a duplicate key at the second occurrence, with its path', async () => {
    const result = await validateText(tempDir, 'version: 1\nsteps:\n  a:\n    task: text.embed\n    task: text.embed\n');
    expect(lines(result)).toEqual(['wf.yaml:5:5: steps.a.task: duplicate key; each key may appear once in a mapping']);
    expect(result.errors[0]?.code).toBe('E_WORKFLOW_YAML');
  });

  it('reports a syntax error at its line and column', async () => {
    const result = await validateText(tempDir, 'version: 1\nsteps: {a: 1\n');
    expect(lines(result)).toEqual(['wf.yaml:3:1: workflow: Flow map in block collection must be sufficiently indented and end with a }']);
  });

  it('refuses several documents in one file', async () => {
    const result = await validateText(tempDir, 'version: 1\n---\nversion: 1\n');
    expect(lines(result)).toEqual(['wf.yaml:2:1: workflow: expected one YAML document, got several (remove the `---` separator)']);
  });

  it('refuses a key that is a collection', async () => {
    const result = await validateText(tempDir, 'version: 1\n? [a, b]\n: 1\n');
    expect(lines(result)).toEqual(['wf.yaml:2:3: workflow: expected a plain scalar key, got a collection or alias']);
  });

  it('refuses an unknown tag', async () => {
    expect(lines(await validateText(tempDir, 'version: !custom 1\nsteps: {}\n'))[0]).toBe('wf.yaml:1:10: version: unsupported YAML tag');
  });

  it('refuses a billion-laughs document quickly, naming the first alias', async () => {
    const bomb = ['a: &a ["x","x"]', ...'bcdef'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdef'[i]}`).join(',')}]`)].join('\n');
    const started = performance.now();
    const parsed = parseYaml(bomb, 'bomb.yaml');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(parsed.errors.map((e) => e.message)).toEqual([
      'bomb.yaml:2:8: workflow: too many aliases (more than 100 expansions): refused as a possible resource exhaustion attack',
    ]);
  });

  it('says an empty file is not a workflow', async () => {
    expect(lines(await validateText(tempDir, ''))).toEqual(['wf.yaml:1:1: workflow: expected object, got null']);
  });

  it('refuses a file over 1 MiB before reading it', async () => {
    const dir = await tempDir();
    const file = join(dir, 'big.yaml');
    await writeFile(file, 'version: 1\n');
    await truncate(file, 1024 * 1024 + 1);
    const result = await validateWorkflow('big.yaml', { cwd: dir, offline: true });
    expect(lines(result)).toEqual(['big.yaml:1:1: workflow: expected a file of at most 1 MiB, got more than 1 MiB']);
    expect(result.errors[0]?.code).toBe('E_WORKFLOW_TOO_LARGE');
  });

  it('reports a missing file as a coded error', async () => {
    const result = await validateWorkflow('nope.yaml', { cwd: await tempDir(), offline: true });
    expect(lines(result)).toEqual(['nope.yaml:1:1: workflow: file not found']);
    expect(result.errors[0]?.code).toBe('E_WORKFLOW_FILE');
  });
});
