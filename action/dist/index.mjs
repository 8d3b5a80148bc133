#!/usr/bin/env node
// The logic of deflow's GitHub Action (action.yml): runs `deflow run|quote|validate` on the
// workflow with its progress in the log, appends a summary to $GITHUB_STEP_SUMMARY (a run
// writes its own), lets deflow's annotations through, writes the step outputs (cost,
// quote-high, report, exit-code) to $GITHUB_OUTPUT, puts `deflow` on the job's PATH for later
// steps, and exits with deflow's exit code. It reads the action's inputs from INPUT_* as the
// runner sets them for a JavaScript action (INPUT_MAX-COST; INPUT_MAX_COST is read too).
// The runner runs the copy in action/dist/index.mjs (scripts/build-action.mjs), beside the
// prebuilt CLI in action/dist/bin: Node built-ins only, nothing to install. Uploads nothing.
// Tested with runner-like variables (test/action/action-run.slow.test.ts, action-start.slow.test.ts).
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const COMMANDS = ['run', 'quote', 'validate'];
/** deflow's exit code for a run that finished with inputs left out (and nothing else wrong). */
const LEFT_OUT = 6;
const env = process.env;
/** When this step started (the action is the step): its timeout counts from about here. */
const stepStart = Date.now();

/** The deflow CLI: DEFLOW_CLI, else the prebuilt one beside this script (action/dist/bin), else the package build. */
const cli =
  env.DEFLOW_CLI ||
  [new URL('./bin/deflow.js', import.meta.url), new URL('../dist/bin/deflow.js', import.meta.url)].map((url) => fileURLToPath(url)).find((file) => existsSync(file)) ||
  fileURLToPath(new URL('./bin/deflow.js', import.meta.url));

function input(name) {
  return (env[`INPUT_${name.toUpperCase()}`] ?? env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? '').trim();
}

/** A true/false input. */
function flag(name) {
  const value = input(name) || 'false';
  if (value !== 'true' && value !== 'false') fail(`${name}: expected true or false, got ${JSON.stringify(value)}`);
  return value === 'true';
}

/** A section of the log, folded in the Actions UI. */
function group(title) {
  process.stdout.write(`::group::${title}\n`);
}
function endGroup() {
  process.stdout.write('::endgroup::\n');
}

/** A workflow command (annotation) the runner reads from stdout. */
function annotate(level, message) {
  process.stdout.write(`::${level} title=deflow::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
}

function setOutputs(outputs) {
  const lines = Object.entries(outputs).map(([key, value]) => `${key}=${value ?? ''}`);
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${lines.join('\n')}\n`);
  else process.stdout.write(`${lines.join('\n')}\n`);
}

function summarize(markdown) {
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${markdown.trimEnd()}\n`);
}

function fail(message) {
  annotate('error', message);
  setOutputs({ cost: '', 'quote-high': '', report: '', 'exit-code': '2' });
  process.exit(2);
}

/** Runs deflow with `args`; stdout goes to `stdoutFile` when given, else through. */
function deflow(args, stdoutFile) {
  process.stdout.write(`deflow ${args.map((arg) => (/^[\w./:=@+-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ')}\n`);
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: env.GITHUB_WORKSPACE || process.cwd(), env: { ...env, GITHUB_ACTIONS: env.GITHUB_ACTIONS ?? 'true', ...deadlineEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => {
      if (stdoutFile) chunks.push(chunk);
      else process.stdout.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (stdoutFile) writeFileSync(stdoutFile, Buffer.concat(chunks));
      done(code ?? (signal ? 128 : 70));
    });
  });
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

group('deflow: inputs');
const workflow = input('workflow');
const command = input('command') || 'run';
const maxCost = input('max-cost');
const emulator = flag('emulator');
const keepGoing = flag('keep-going');
const allowLeftOut = flag('allow-left-out');
const stateDir = input('state-dir');
const compareTo = input('compare-to');
const webhookUrl = input('webhook-url');
const webhookListen = input('webhook-listen');
const timeoutMinutes = input('timeout-minutes');
if (workflow === '') fail('the `workflow` input is required: the path of the workflow file');
if (!COMMANDS.includes(command)) fail(`command: expected one of ${COMMANDS.join(', ')}, got ${JSON.stringify(command)}`);
if (maxCost !== '' && !(Number(maxCost) >= 0)) fail(`max-cost: expected a number of USD ≥ 0, got ${JSON.stringify(maxCost)}`);
if (compareTo !== '' && command !== 'quote') fail(`compare-to: only with command: quote (the quote's change against an earlier one), not ${command}`);
if ((webhookUrl === '') !== (webhookListen === '')) fail(`${webhookUrl === '' ? 'webhook-listen' : 'webhook-url'}: expected ${webhookUrl === '' ? 'webhook-url' : 'webhook-listen'} as well (the service calls the URL, the receiver listens at the address)`);
if (webhookUrl !== '' && command !== 'run') fail(`webhook-url: only with command: run, not ${command}`);
if (timeoutMinutes !== '' && !(Number(timeoutMinutes) > 0)) fail(`timeout-minutes: expected the step's timeout-minutes, a number > 0, got ${JSON.stringify(timeoutMinutes)}`);
// The step's deadline for deflow's drain (docs/ci.md): GitHub does not tell a step its timeout.
const deadlineEnv = timeoutMinutes === '' ? {} : { DEFLOW_DRAIN_DEADLINE: new Date(stepStart + Number(timeoutMinutes) * 60_000).toISOString() };
const webhookArgs = webhookUrl === '' ? [] : ['--webhook-url', webhookUrl, '--webhook-listen', webhookListen];

// `inputs`: one `name=value` per line (blank lines and lines starting with # are skipped).
const given = input('inputs')
  .split(/\r?\n/)
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
for (const pair of given) if (!/^[A-Za-z_][\w-]*=/.test(pair)) fail(`inputs: expected one name=value per line, got ${JSON.stringify(pair)}`);
const inputArgs = [...given.flatMap((pair) => ['--input', pair]), ...(keepGoing ? ['--keep-going'] : [])];
const common = [...(emulator ? ['--emulator'] : []), ...inputArgs, ...(stateDir === '' ? [] : ['--state-dir', stateDir])];
const budget = maxCost === '' ? [] : ['--max-cost', maxCost];

const out = resolve(env.RUNNER_TEMP || '.', `deflow-${env.GITHUB_RUN_ID || process.pid}-${env.GITHUB_ACTION || 'action'}`);
mkdirSync(out, { recursive: true });

// `deflow` on the job's PATH for later steps: the same CLI on the same Node.
if (env.GITHUB_PATH) {
  const bin = join(env.RUNNER_TEMP || out, 'deflow-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'deflow'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} "$@"\n`);
  chmodSync(join(bin, 'deflow'), 0o755);
  appendFileSync(env.GITHUB_PATH, `${bin}\n`);
}
process.stdout.write(`command: ${command}; workflow: ${workflow}; deflow: ${cli}; Node ${process.version}\n`);
endGroup();

if (command === 'run') {
  const report = join(out, 'run.json');
  // Not in a group of ours: deflow folds each workflow step's summary into its own group as the
  // step ends (the runner does not nest groups), and its progress lines (done/total, spend,
  // ETA; a line when something changed, every 30 s at the least) stay visible between them.
  const code = await deflow(['run', workflow, ...common, ...budget, ...webhookArgs, '--report', report, '--junit', join(out, 'junit.xml'), '--html', join(out, 'report.html')]);
  const parsed = readJson(report);
  // deflow run writes its own step summary and annotations when GITHUB_ACTIONS is true.
  setOutputs({ cost: parsed?.totals?.cost_actual ?? '', 'quote-high': parsed?.quote?.high ?? '', report: parsed === null ? '' : report, 'exit-code': code });
  // Exit 6: the run finished and every item that could run succeeded, but inputs refused at
  // validation were left out. It fails the step unless allow-left-out is true (the output keeps 6).
  if (code === LEFT_OUT && allowLeftOut) {
    process.stdout.write(`deflow exited ${LEFT_OUT} (inputs left out); the step passes (allow-left-out: true)\n`);
    process.exit(0);
  }
  process.exit(code);
}

if (command === 'quote') {
  const report = join(out, 'quote.json');
  const markdown = join(out, 'quote.md');
  group(`deflow quote ${workflow}`);
  const code = await deflow(['quote', workflow, ...common, ...budget, ...(compareTo === '' ? [] : ['--compare-to', compareTo]), '--format', 'markdown', '--output', report], markdown);
  endGroup();
  const parsed = readJson(report);
  let text = '';
  try {
    text = readFileSync(markdown, 'utf8');
  } catch {}
  summarize(text !== '' ? text : `### deflow quote: ${workflow}\n\nno quote (exit ${code})\n`);
  if (parsed !== null && code === 4) annotate('error', `${workflow}: ${parsed.verdict_reason ?? 'over budget'}`);
  else if (parsed !== null && parsed.total?.unknown_items > 0) annotate('warning', `${workflow}: ${parsed.total.unknown_items} item(s) have no price; the total is a lower bound`);
  setOutputs({ cost: parsed?.total?.point ?? '', 'quote-high': parsed?.total?.high ?? '', report: parsed === null ? '' : report, 'exit-code': code });
  process.exit(code);
}

// validate: deflow prints its own annotations (workflow commands) for every problem.
const report = join(out, 'validate.json');
group(`deflow validate ${workflow}`);
const code = await deflow(['validate', workflow, ...inputArgs, '--json'], report);
endGroup();
const parsed = readJson(report);
const lines = [`### deflow validate: \`${workflow}\``, ''];
if (parsed?.ok) {
  lines.push(`✅ valid: ${parsed.plan?.jobs ?? '?'} job(s) in ${parsed.plan?.steps?.length ?? '?'} step(s)`);
  for (const step of parsed.plan?.steps ?? []) lines.push(`- \`${step.id}\` (${step.task}): ${step.items} item(s)`);
} else {
  lines.push(`❌ ${parsed?.errors?.length ?? 'unknown number of'} problem(s)`, '');
  for (const error of parsed?.errors?.slice(0, 50) ?? []) lines.push(`- \`${error.file}:${error.line}:${error.col}\` ${error.path}: ${error.message}`);
}
summarize(lines.join('\n'));
setOutputs({ cost: '', 'quote-high': '', report: parsed === null ? '' : report, 'exit-code': code });
process.exit(code);
