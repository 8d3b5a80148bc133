/**
 * Benchmark runner: `npm run bench -- NAME [args]`. Each benchmark lives in `bench/NAME.ts`,
 * exports `run(args): Promise<Record<string, unknown>>`, prints its human-readable figures,
 * and the runner prints the result as the last line: `{"bench":"NAME",…}`.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.js') && f !== 'run.js' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- NAME [args]\navailable: ${available.join(', ') || '(none)'}\n`);
  process.exit(2);
}
const mod = (await import(`./${name}.js`)) as { run(args: string[]): Promise<Record<string, unknown>> };
const result = await mod.run(args);
process.stdout.write(`${JSON.stringify({ bench: name, ...result })}\n`);
process.exit(0);
