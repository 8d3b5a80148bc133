/**
 * `deflow emulator [--host 127.0.0.1] [--port 8787] [--config FILE] [--profile spec|live]
 * [--tier basic|premium] [--time-scale N] [--tls-cert FILE --tls-key FILE]`: runs the local service emulator
 * until SIGINT/SIGTERM. Prints its base URL first (scripts read that line), then the
 * configured keys, the account webhook secret and the time scale. The action lives in emulator-action.ts,
 * loaded when the command runs.
 */
import { type Command, Option } from 'commander';
import type { CliIO } from '../../common/index.js';
import type { EmulatorCommandOptions } from '../actions/emulator-action.js';
import type { ActionWrapper } from './action-wrapper.js';

/** Adds the `emulator` command. */
export function registerEmulatorCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  program
    .command('emulator')
    .description('Run a local emulator of the service (spec-exact auth, rate limits, jobs, prices, webhooks).')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
    .option('--config <file>', 'emulator config, YAML or JSON (schemas/emulator.schema.json)')
    .addOption(new Option('--profile <profile>', "answer as the spec says (spec) or as the live service and its public clients do (live); overrides the config's").choices(['spec', 'live']))
    .option('--time-scale <n>', "emulator seconds per real second (jobs, rate windows and daily resets run N times faster); overrides the config's time_scale")
    .addOption(new Option('--tier <tier>', "the public docs' published rate limits; overrides the config's").choices(['basic', 'premium']))
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (with --tls-key)')
    .option('--tls-key <file>', 'the PEM private key of --tls-cert')
    .action(wrap(async (options: EmulatorCommandOptions) => (await import('../actions/emulator-action.js')).runEmulatorCommand(options, io)));
}
