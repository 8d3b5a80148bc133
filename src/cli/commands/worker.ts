/**
 * `deflow worker --queue URL [--concurrency N]`: processes the jobs coordinators enqueue for
 * the account (the API key and base URL decide which: `DEAPI_API_KEY` or `--api-key-file`,
 * `DEAPI_BASE_URL`), on as many processes and machines as wanted. Runs until SIGINT or
 * SIGTERM; then it takes no new job, polls the jobs it submitted for a grace period and hands
 * what is left back to the queue (another worker picks it up, polling the same request id).
 * Every worker must see the workflow files, inputs and outputs at the coordinator's paths.
 * The action lives in actions/run/worker-action.ts, loaded when the command runs.
 */
import { type Command, Option } from 'commander';
import { API_KEY_ENV } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import type { ActionWrapper } from './action-wrapper.js';
import type { WorkerFlags } from '../actions/run/worker-action.js';

/** Adds `deflow worker`. */
export function registerWorkerCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('worker')
    .description('process the jobs of distributed runs (deflow run --queue) from a Redis queue, until stopped')
    .option('--queue <url>', 'the Redis of the queue: redis://HOST:PORT[/DB], rediss://HOST:PORT[/DB] or unix:///path.sock')
    .option('--concurrency <n>', 'jobs in flight per rate-limit pool in this process', '100')
    .option('--grace <seconds>', 'after SIGINT/SIGTERM, how long submitted jobs are still polled before they are handed back', '15')
    .option('--api-key-file <path>', `read the API key from a file, or - for standard input (default: $${API_KEY_ENV})`)
    .option('--webhook-url <url>', "with --webhook-listen and --state-dir: the stable public URL earlier `deflow run --webhook-url` sessions gave their jobs; this worker answers those jobs' deliveries (verified with their run's secret) and keeps them for the next session to adopt")
    .option('--webhook-listen <host:port>', 'where that receiver listens (the URL reaches it through a tunnel or reverse proxy)')
    .option('--state-dir <dir>', 'the state folder of the runs whose deliveries it answers')
    .option('--metrics-port <port>', 'serve Prometheus metrics (jobs, spend, 429s, waits, liveness) on http://127.0.0.1:PORT/metrics')
    .option('--quiet', 'print nothing but errors')
    .option('--verbose', 'log every request and answer to stderr (secrets are masked)')
    .addOption(new Option('--api-key <key>', 'not accepted: keys in flags leak into shell history').hideHelp())
    .option('--lock-ms <ms>', "how long (real ms) a job's lock lasts unrenewed: a lost worker's jobs are taken over after about 1.5 times this; too short, and a worker stalled by a busy machine loses jobs it is running", '30000')
    .action(wrap(async (flags: WorkerFlags) => (await import('../actions/run/worker-action.js')).runWorker(flags, io)));
}
