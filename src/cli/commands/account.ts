/**
 * `deflow account balance|payments|key [--json]`: the account's balance, its payments (ADMIN
 * key) and the calling key (masked preview only). The actions live in account-action.ts,
 * loaded when a subcommand runs.
 */
import type { Command } from 'commander';
import type { CliIO } from '../../common/index.js';
import type { AccountOptions, PaymentsOptions } from '../actions/account-action.js';
import type { ActionWrapper } from './action-wrapper.js';
import { addServiceOptions } from '../service-options.js';

/** Adds the `account` command and its subcommands. */
export function registerAccountCommand(program: Command, io: CliIO, wrap: ActionWrapper): void {
  const account = program.command('account').description('Show the account balance, payments and the calling API key.');
  addServiceOptions(account.command('balance').description('Show the balance in USD.').option('--json', 'print JSON')).action(
    wrap(async (options: AccountOptions) => (await import('../actions/account-action.js')).showBalance(options, io)),
  );
  addServiceOptions(
    account
      .command('payments')
      .description('List balance top-ups, newest first (needs an ADMIN key).')
      .option('--limit <n>', 'payments per page, 1-100', '50')
      .option('--page <n>', 'page number', '1')
      .option('--json', 'print JSON'),
  ).action(wrap(async (options: PaymentsOptions) => (await import('../actions/account-action.js')).showPayments(options, io)));
  addServiceOptions(account.command('key').description('Show the calling API key (masked).').option('--json', 'print JSON')).action(
    wrap(async (options: AccountOptions) => (await import('../actions/account-action.js')).showKey(options, io)),
  );
}
