/** What `deflow account balance|payments|key` does (account.ts defines the commands). */
import { DeflowError } from '../../common/index.js';
import type { CliIO } from '../../common/index.js';
import { EXIT } from '../../common/index.js';
import type { ServiceOptionValues } from '../service-options.js';
import { withServiceSession } from '../service-session.js';
import { formatTable } from '../text-table.js';

export interface AccountOptions extends ServiceOptionValues {
  readonly json?: boolean;
}

export interface PaymentsOptions extends AccountOptions {
  readonly limit?: string;
  readonly page?: string;
}

export async function showBalance(options: AccountOptions, io: CliIO): Promise<number> {
  const { balance } = await withServiceSession(options, io, 'admin', ({ client }) => client.balance());
  io.stdout.write(options.json ? `${JSON.stringify({ balance })}\n` : `balance: ${balance.toFixed(2)} USD\n`);
  return EXIT.ok;
}

export async function showPayments(options: PaymentsOptions, io: CliIO): Promise<number> {
  const limit = parsePositive('--limit', options.limit ?? '50', 100);
  const page = parsePositive('--page', options.page ?? '1', Number.MAX_SAFE_INTEGER);
  const result = await withServiceSession(options, io, 'admin', ({ client }) => client.payments({ limit, page }));
  if (options.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return EXIT.ok;
  }
  const rows = result.data.map((p) => [String(p.id), p.created_at, `${p.amount.toFixed(2)} ${p.currency}`, p.status, p.provider]);
  if (rows.length > 0) io.stdout.write(`${formatTable(['id', 'created', 'amount', 'status', 'provider'], rows)}\n`);
  io.stdout.write(`page ${result.meta.current_page} of ${result.meta.last_page} (${result.meta.total} payments)\n`);
  return EXIT.ok;
}

export async function showKey(options: AccountOptions, io: CliIO): Promise<number> {
  const key = await withServiceSession(options, io, 'api', ({ client }) => client.key());
  if (options.json) {
    io.stdout.write(`${JSON.stringify(key, null, 2)}\n`);
    return EXIT.ok;
  }
  const show = (value: unknown): string => (value === null || value === undefined || value === '' ? '-' : String(value));
  const lines: [string, unknown][] = [
    ['name', key.name],
    ['preview', key.preview],
    ['role', key.role],
    ['status', key.status],
    ['expires', key.expires_at ?? 'never'],
    ['last used', key.last_used_at],
    ['ip whitelist', key.ip_whitelist.length > 0 ? key.ip_whitelist.join(', ') : 'any address'],
    ['spend limit', key.limit === null ? 'none' : `${key.limit_used ?? 0} of ${key.limit} used, ${key.limit_remaining ?? '-'} left`],
    ['limit resets', key.limit_resets_at ? `${key.limit_resets_at} (${show(key.reset_interval)})` : '-'],
  ];
  io.stdout.write(`${lines.map(([label, value]) => `${`${label}:`.padEnd(14)}${show(value)}`).join('\n')}\n`);
  return EXIT.ok;
}

function parsePositive(flag: string, value: string, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > max) {
    throw new DeflowError('E_USAGE_OPTION', `${flag}: expected an integer from 1 to ${max === Number.MAX_SAFE_INTEGER ? 'up' : max}, got ${JSON.stringify(value)}`);
  }
  return n;
}
