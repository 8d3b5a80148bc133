import { describe, expect, it } from 'vitest';
import { noCycles } from '../../../src/workflow/rules/no-cycles.js';
import { runRule, useTempDirs } from '../helpers.js';

const tempDir = useTempDirs();
const embed = (id: string, extra: string): string => `  ${id}:\n    task: text.embed\n    ${extra}\n    with: { input: x, model: Bge_M3_FP16 }\n`;

describe('noCycles', () => {
  it('passes a chain that runs forward', async () => {
    expect((await runRule(tempDir, noCycles, `version: 1\nsteps:\n${embed('a', 'cache: true')}${embed('b', 'needs: a')}`)).errors).toEqual([]);
  });

  it('reports a loop through needs and references, in run order', async () => {
    const yaml = `version: 1\nsteps:\n${embed('a', 'needs: c')}${embed('b', 'if: ${{ steps.a.cost > 0 }}')}${embed('c', 'needs: b')}`;
    expect((await runRule(tempDir, noCycles, yaml)).errors).toEqual(['wf.yaml:3:3: steps.a: steps wait for each other in a cycle: a → b → c → a']);
  });

  it('reports a step that needs itself', async () => {
    expect((await runRule(tempDir, noCycles, `version: 1\nsteps:\n${embed('a', 'needs: a')}`)).errors).toEqual(['wf.yaml:3:3: steps.a: steps wait for each other in a cycle: a → a']);
  });
});
