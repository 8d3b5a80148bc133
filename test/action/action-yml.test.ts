import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

interface ActionYml {
  description: string;
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value?: string }>;
  runs: { using: string; main?: string; steps?: unknown[] };
}

describe('action.yml', () => {
  const action = parse(readFileSync(`${root}action.yml`, 'utf8')) as ActionYml;

  it('is a JavaScript action on Node 24 running the prebuilt action/dist/index.mjs: no install step', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'action/dist/index.mjs' });
    expect(existsSync(`${root}action/dist/index.mjs`)).toBe(true);
    expect(action.description).toMatch(/Linux and macOS runners/);
  });

  it('has the inputs and outputs the docs name', () => {
    expect(Object.keys(action.inputs)).toEqual(['workflow', 'command', 'max-cost', 'emulator', 'inputs', 'keep-going', 'state-dir', 'compare-to', 'allow-left-out', 'webhook-url', 'webhook-listen', 'timeout-minutes']);
    expect(action.inputs['workflow']?.required).toBe(true);
    expect([action.inputs['command']?.default, action.inputs['emulator']?.default, action.inputs['keep-going']?.default, action.inputs['allow-left-out']?.default]).toEqual(['run', 'false', 'false', 'false']);
    expect(Object.keys(action.outputs)).toEqual(['cost', 'quote-high', 'report', 'exit-code']);
    const docs = readFileSync(`${root}docs/ci.md`, 'utf8');
    for (const name of [...Object.keys(action.inputs), ...Object.keys(action.outputs)]) expect(docs, name).toContain(`\`${name}\``);
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
