import { describe, expect, it } from 'vitest';
import { forEachSources } from '../../../src/workflow/rules/for-each-sources.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const embed = (forEach: string): string => `version: 1\nsteps:\n  e:\n    task: text.embed\n    for_each: ${forEach}\n    with: { input: "\${{ item.value }}", model: Bge_M3_FP16 }\n`;

describe('forEachSources', () => {
  it('reads txt, jsonl and csv files', async () => {
    const files = { 'a.txt': 'one\n\ntwo\n', 'a.jsonl': '{"x":1}\n"y"\n', 'a.csv': 'x,y\n1,2\n' };
    for (const file of Object.keys(files)) expect((await runRule(tempDir, forEachSources, embed(`{ file: ${file} }`), { files })).errors).toEqual([]);
  });

  it('reports a missing file at the for_each value', async () => {
    expect((await runRule(tempDir, forEachSources, embed('{ file: lists/prompts.txt }'))).errors).toEqual(['wf.yaml:5:23: steps.e.for_each.file: lists/prompts.txt: file not found']);
  });

  it('reports a bad JSON line at its line in the list file', async () => {
    const files = { 'list.jsonl': '{"a":1}\n{"a":\n' };
    const [line] = (await runRule(tempDir, forEachSources, embed('{ file: list.jsonl }'), { files })).errors;
    expect(line).toMatch(/^list\.jsonl:2:1: steps\.e\.for_each\.file: expected one JSON value per line \(/);
  });

  it('reports a ragged CSV row at its line', async () => {
    const files = { 'list.csv': 'a,b\n1,2\n3\n' };
    expect((await runRule(tempDir, forEachSources, embed('{ file: list.csv }'), { files })).errors).toEqual([
      'list.csv:3:1: steps.e.for_each.file: cannot read the CSV (Invalid Record Length: columns length is 2, got 1 on line 3)',
    ]);
  });

  it('refuses an unknown list format', async () => {
    expect((await runRule(tempDir, forEachSources, embed('{ file: list.xlsx }'), { files: { 'list.xlsx': 'x' } })).errors).toEqual([
      'wf.yaml:5:23: steps.e.for_each.file: list.xlsx: expected a .txt, .jsonl or .csv file, got ".xlsx"',
    ]);
  });

  it('refuses a glob whose folder does not exist', async () => {
    const [line] = (await runRule(tempDir, forEachSources, embed('{ glob: "in/sub/*.txt" }'))).errors;
    expect(line).toMatch(/^wf\.yaml:5:15: steps\.e\.for_each: glob in\/sub\/\*\.txt: folder "in\/sub" not found \(looked in .+\)$/);
  });

  it('warns when a glob matches nothing in an existing folder', async () => {
    const result = await runRule(tempDir, forEachSources, embed('{ glob: "in/*.txt" }'), { files: { 'in/readme.md': 'x' } });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^wf\.yaml:5:15: steps\.e\.for_each: glob in\/\*\.txt matched no files \(looked in .+\); the step has no items$/);
  });

  it('refuses a chain from a step that runs once', async () => {
    const yaml = `version: 1\nsteps:\n  a:\n    task: text.embed\n    with: { input: x, model: Bge_M3_FP16 }\n  b:\n    task: text.embed\n    for_each: a\n    with: { input: x, model: Bge_M3_FP16 }\n`;
    expect((await runRule(tempDir, forEachSources, yaml)).errors).toEqual([
      'wf.yaml:8:15: steps.b.for_each: expected a step that fans out (has for_each), got steps.a, which runs once; use needs: a to wait for it',
    ]);
  });

  it('resolves paths from inputs', async () => {
    const yaml = `version: 1\ninputs:\n  list: { type: string, default: missing.txt }\n${embed('{ file: "${{ inputs.list }}" }').slice('version: 1\n'.length)}`;
    expect((await runRule(tempDir, forEachSources, yaml, { files: { 'b.txt': 'x\n' }, validate: { inputs: { values: { list: 'b.txt' } } } })).errors).toEqual([]);
    expect((await runRule(tempDir, forEachSources, yaml)).errors).toEqual(['wf.yaml:7:23: steps.e.for_each.file: missing.txt: file not found']);
  });
});
