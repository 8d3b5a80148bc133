/**
 * Every GitHub workflow we hand out (examples/github/*.yml and `deflow init`'s snippet) and
 * action.yml, read by GitHub's own parser (@actions/workflow-parser): no error. The steps that
 * use deflow's action pass only its inputs (its required ones always) and read only its
 * outputs; the actions they call are at their current major versions (Node 24); the nightly
 * state survives a red night (cache/restore + cache/save under always(), a key per run, gc first).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { createFakeCliIO } from '../helpers/fake-cli-io.js';
import { type ParsedFile, workflowParser } from '../helpers/workflow-parser.js';

const root = new URL('../../', import.meta.url).pathname;
/** The current major of each action the examples call (all on Node 24). */
const CURRENT = { 'actions/checkout': 'v6', 'actions/setup-node': 'v6', 'actions/cache/restore': 'v6', 'actions/cache/save': 'v6', 'actions/upload-artifact': 'v7', 'marocchino/sticky-pull-request-comment': 'v2' } as const;

interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  'continue-on-error'?: boolean;
}
interface Workflow {
  jobs: Record<string, { steps: Step[] }>;
}

const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as { inputs: Record<string, { required?: boolean }>; outputs: Record<string, unknown> };
const files: Record<string, string> = {};

beforeAll(async () => {
  for (const name of readdirSync(join(root, 'examples', 'github')).filter((file) => file.endsWith('.yml'))) {
    files[`examples/github/${name}`] = readFileSync(join(root, 'examples', 'github', name), 'utf8');
  }
  const dir = await mkdtemp(join(tmpdir(), 'deflow-workflow-files-'));
  const io = { ...createFakeCliIO(dir), env: {} };
  expect(await runCli(['init', 'project'], io), io.stderrText()).toBe(0);
  files['deflow init: ci/github-actions.yml'] = readFileSync(join(dir, 'project', 'ci', 'github-actions.yml'), 'utf8');
  await rm(dir, { recursive: true, force: true });
});

const steps = (text: string): Step[] => Object.values((parse(text) as Workflow).jobs).flatMap((job) => job.steps);
const isDeflow = (step: Step): boolean => step.uses === 'OWNER/deflow@REF';

describe("GitHub's parser", () => {
  it('reads action.yml without an error: a node24 action with its inputs and outputs', async () => {
    const parsed: ParsedFile = (await workflowParser()).parseAction({ name: 'action.yml', content: readFileSync(join(root, 'action.yml'), 'utf8') });
    expect(parsed.errors).toEqual([]);
    expect(parsed.model.runs).toMatchObject({ using: 'node24', main: 'action/dist/index.mjs' });
    expect(parsed.model.inputs.map((input: { id: string }) => input.id)).toEqual(Object.keys(action.inputs));
  });

  it('reads every example workflow and the init snippet without an error', async () => {
    const parser = await workflowParser();
    expect(Object.keys(files).length).toBeGreaterThanOrEqual(3);
    for (const [name, content] of Object.entries(files)) {
      const parsed = await parser.parseWorkflow({ name, content });
      expect(parsed.errors, name).toEqual([]);
      expect(parsed.model.jobs.length, name).toBeGreaterThan(0);
    }
  });

  it('refuses a broken workflow (so the checks above can fail)', async () => {
    const parsed = await (await workflowParser()).parseWorkflow({ name: 'broken.yml', content: 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v6\n        whith: {}\n' });
    expect(parsed.errors.join('\n')).toMatch(/whith/);
  });
});

describe('the workflows against the action', () => {
  it("pass only the action's inputs, every required one, and read only its outputs", () => {
    const required = Object.entries(action.inputs).filter(([, input]) => input.required === true).map(([name]) => name);
    for (const [name, content] of Object.entries(files)) {
      const uses = steps(content).filter(isDeflow);
      expect(uses.length, name).toBeGreaterThan(0);
      for (const step of uses) {
        for (const key of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs), `${name}: with.${key}`).toContain(key);
        for (const key of required) expect(Object.keys(step.with ?? {}), `${name}: ${key}`).toContain(key);
      }
      const ids = new Set(uses.map((step) => step.id));
      for (const match of content.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        if (ids.has(match[1])) expect(Object.keys(action.outputs), `${name}: ${match[0]}`).toContain(match[2]);
      }
    }
  });

  it('call the current major version of every action, on Node 24', () => {
    for (const [name, content] of Object.entries(files)) {
      for (const step of steps(content).filter((s) => s.uses !== undefined && !isDeflow(s))) {
        const [action, version] = step.uses!.split('@') as [keyof typeof CURRENT, string];
        expect(CURRENT[action], `${name}: ${step.uses} is not one we know`).toBeDefined();
        expect(version, `${name}: ${step.uses}`).toBe(CURRENT[action]);
        if (action === 'actions/setup-node') expect(String(step.with?.['node-version']), name).toBe('24');
      }
    }
  });

  it('keep the state folder through a red night: restore, gc, then save under always() with a key per run', () => {
    for (const name of ['examples/github/nightly.yml', 'deflow init: ci/github-actions.yml']) {
      const all = steps(files[name]!);
      const restore = all.findIndex((s) => s.uses?.startsWith('actions/cache/restore@'));
      const gc = all.findIndex((s) => /\bdeflow gc\b/.test(s.run ?? ''));
      const save = all.findIndex((s) => s.uses?.startsWith('actions/cache/save@'));
      expect([restore >= 0, gc > restore, save > gc], name).toEqual([true, true, true]);
      expect(all.some((s) => s.uses?.startsWith('actions/cache@')), name).toBe(false);
      expect(all[save]!.if, name).toMatch(/^always\(\)/);
      expect(all[gc]!.if, name).toMatch(/^always\(\)/);
      expect(String(all[save]!.with?.['key']), name).toMatch(/\$\{\{ github\.run_id \}\}/);
      expect(all[save]!.with?.['key'], name).toBe(all[restore]!.with?.['key']);
      expect(all[save]!.with?.['path'], name).toBe(all[restore]!.with?.['path']);
    }
  });

  it('without DEAPI_API_KEY (a fork) say so in the job summary and skip the paid steps', () => {
    for (const [name, content] of Object.entries(files)) {
      const all = steps(content);
      const check = all.find((s) => s.id === 'key');
      expect(check?.run, name).toMatch(/DEAPI_API_KEY/);
      expect(check?.run, name).toMatch(/GITHUB_STEP_SUMMARY/);
      expect(check?.run, name).not.toMatch(/exit 1/);
      for (const step of all.filter(isDeflow)) expect(step.if, `${name}: ${step.id}`).toMatch(/steps\.key\.outputs\.present == 'true'/);
    }
  });
});
