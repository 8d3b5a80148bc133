/**
 * `deflow run WORKFLOW`: validates, expands, quotes when there is a budget, and runs every
 * job within the account's rate limits, passing results from step to step and saving
 * outputs. Progress and the summary go to stderr; `--json` streams NDJSON events on stdout.
 * Exit codes: 0 all done; 1 failed or unknown items; 2 invalid workflow or usage, or another
 * deflow run holds the state folder (`--wait-lock` waits for it); 3 refused
 * before the first submission; 4 over budget; 5 stopped by a daily rate limit; 130 interrupted.
 *
 * Every run is journalled in the state folder: running the same workflow again resumes its
 * last unfinished run (or `--run-id`), and jobs unchanged since an earlier run come from the
 * result cache (docs/running.md#durable-runs-resume-the-result-cache-unknown-webhooks). The action lives in actions/run/run-action.ts, loaded when the
 * command runs.
 */
import { type Command, Option } from 'commander';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { RunFlags } from '../actions/run/run-flags.js';
import { addServiceOptions } from '../service-options.js';
import { addWorkflowInputOptions } from '../workflow-input-options.js';

/** Adds `deflow run`. */
export function registerRunCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  const command = addWorkflowInputOptions(
    program
      .command('run')
      .description('run a workflow: every job within the rate limits and the budget, results passed on and saved')
      .argument('<workflow>', 'workflow file (YAML)'),
  )
    .option('--concurrency <n>', 'most jobs in flight at once (default: derived from the learned rate limits)')
    .option('--max-cost <usd>', "budget in USD (overrides the workflow's budget.max_cost): quote first, refuse when the high end is above it, never spend past it")
    .option('--allow-unpriced', 'with a budget: run items the quote could not price, each priced and held against the cap just before it is sent')
    .option('--dry-run', 'validate, expand and quote; submit nothing')
    .option('--json', 'stream NDJSON events on stdout (human text stays on stderr)')
    .option('--report <file>', 'write the run report (JSON) to this file')
    .option('--junit <file>', 'write a JUnit XML report to this file')
    .option('--html <file>', 'write the HTML report (a timeline of every job, costs, failures) to this file when the run ends')
    .option('--output <dir>', "output folder for `save` (default: the workflow's output, else out/ beside it)")
    .option('--offline', 'validate against cached models only (no model list request)')
    .option('--state-dir <dir>', 'state folder: journals, result cache (default: .deflow beside the workflow)')
    .option('--run-id <id>', 'resume this run (default: the last unfinished run of this workflow), or name a new one')
    .option('--resubmit-unknown', 'submit items left unknown again (the service may already have them: this may pay twice)')
    .option('--resubmit-timed-out', 'submit items whose job timed out again instead of polling and adopting that job (it may still finish and be charged: this may pay twice)')
    .option('--no-cache', 'do not reuse results of identical earlier jobs (nor store new ones)')
    .option('--webhook-url <url>', 'ask the service to notify this URL (it must reach --webhook-listen); polling stays on')
    .option('--webhook-listen <host:port>', 'where the local webhook receiver listens (with --webhook-url)')
    .option('--queue <url>', 'coordinate a distributed run: enqueue the jobs in this Redis (redis://HOST:PORT[/DB], rediss://…, unix:///path.sock) for `deflow worker` processes')
    .option('--governor <url>', 'share the account\'s rate limits with every other deflow process naming this Redis (redis://HOST:PORT[/DB], rediss://…, unix:///path.sock): independent runs on one account, no coordinator')
    .option('--keep-going', 'leave out items whose inputs fail the load-time checks (each reported) and run the rest; exit 1 at the end when any was left out or failed (as defaults.keep_going: true)')
    .option('--wait-daily', "when a pool's daily limit is used up, wait for its reset instead of deferring its items (other pools go on either way)")
    .option('--trace-file <file>', 'write OpenTelemetry spans of the run (OTLP JSON, one export request a line) to this file; OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_TRACES_EXPORTER send them to a collector')
    .option('--pushgateway <url>', 'push the run\'s final metrics to this Prometheus Pushgateway (job="deflow", grouped by workflow)')
    .option('--metrics-file <file>', 'write the run\'s final metrics in the node_exporter textfile format to this file')
    .option('--metrics-port <port>', 'with --queue: serve Prometheus metrics on http://127.0.0.1:PORT/metrics while the run lasts')
    .option('--notify <url>', 'POST a JSON summary to this URL when the run ends (as notify: in the workflow; repeatable)', (url: string, all: string[] = []) => [...all, url])
    .option('--notify-on <when>', 'when --notify URLs hear: a comma-separated list of failure, deferred, always', 'failure,deferred')
    .option(
      '--wait-lock [duration]',
      'when another deflow run holds the state folder, wait for it to end (--wait-lock=DURATION: at most 90s, 10m, 2h; alone: as long as it takes) and then resume its run, instead of exiting 2',
    )
    .option(
      '--drain [duration]',
      "with --webhook-url: on Ctrl-C, a budget stop or a daily limit, wait for the jobs given this session's webhook URL to end and their deliveries to come (polling as a fallback), so their deliveries do not fail (--drain=DURATION: at most 90s, 10m, 2h; alone: until they are done; default: until 30 s before $DEFLOW_DRAIN_DEADLINE when set, else in CI (CI=true) 10m, else 15s)",
    )
    .option('--quiet', 'no progress output (files and --json are still written)')
    .option('--no-color', 'no colours in progress output')
    .addOption(new Option('--emulator-config <file>', 'with --emulator: its config file (YAML or JSON)'));
  addServiceOptions(command).action(wrap(async (file: string, flags: RunFlags) => (await import('../actions/run/run-action.js')).runCommand(file, flags, io)));
}
