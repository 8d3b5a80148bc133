import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

interface ActionYml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; run: string; env?: Record<string, string> }[] };
}

describe('action.yml', () => {
  const action = parse(readFileSync(`${root}action.yml`, 'utf8')) as ActionYml;

  it('is a composite action with the inputs and outputs the README documents', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(['workflow', 'command', 'max-cost', 'emulator', 'inputs']);
    expect(action.inputs['workflow']?.required).toBe(true);
    expect([action.inputs['command']?.default, action.inputs['emulator']?.default]).toEqual(['run', 'false']);
    expect(Object.keys(action.outputs)).toEqual(['cost', 'quote-high', 'report', 'exit-code']);
  });

  it('passes every input to action/run.mjs as INPUT_* and takes every output from its step', () => {
    const step = action.runs.steps.find((s) => s.id === 'deflow');
    expect(step?.run).toBe('node "$GITHUB_ACTION_PATH/action/run.mjs"');
    for (const name of Object.keys(action.inputs)) expect(step?.env?.[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`]).toBe(`\${{ inputs.${name} }}`);
    for (const name of Object.keys(action.outputs)) expect(action.outputs[name]?.value).toBe(`\${{ steps.deflow.outputs.${name} }}`);
  });

  it('documented example workflows use it with its inputs only', () => {
    for (const file of ['examples/github/pull-request-quote.yml', 'examples/github/nightly.yml']) {
      const workflow = parse(readFileSync(`${root}${file}`, 'utf8')) as { jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }> };
      const uses = Object.values(workflow.jobs).flatMap((job) => job.steps.filter((s) => s.uses?.includes('deflow')));
      expect(uses.length, file).toBeGreaterThan(0);
      for (const step of uses) for (const key of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs)).toContain(key);
    }
  });
});
