/**
 * Options shared by every command that talks to the service: `--emulator` (an in-process
 * emulator on its own virtual clock, no account needed), `--api-key-file PATH|-`, `--verbose`.
 * Without `--emulator` the base URL is `DEAPI_BASE_URL` (default https://api.deapi.ai) and the
 * key comes from the file or `DEAPI_API_KEY`, never from a flag value. Opening the client they
 * describe is service-session.ts's job (loaded with the command's action).
 */
import { type Command, Option } from 'commander';
import { API_KEY_ENV } from '../common/index.js';

/** Values of the shared options, as commander parses them. */
export interface ServiceOptionValues {
  readonly emulator?: boolean;
  readonly apiKeyFile?: string;
  readonly apiKey?: string;
  readonly verbose?: boolean;
}

/** Adds `--emulator`, `--api-key-file` and `--verbose` to a command. */
export function addServiceOptions(command: Command): Command {
  return command
    .option('--emulator', 'run against an in-process emulator of the service (no account or key needed)')
    .option('--api-key-file <path>', `read the API key from a file, or - for standard input (default: $${API_KEY_ENV})`)
    .option('--verbose', 'log every request and answer to stderr (secrets are masked)')
    .addOption(new Option('--api-key <key>', 'not accepted: keys in flags leak into shell history').hideHelp());
}
