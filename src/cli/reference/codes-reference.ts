/**
 * docs/reference/exit-codes.md, generated from `EXIT` (src/common/exit-codes.ts), the error-code
 * table (`ERROR_EXIT_CODES`, in the same file) and the codes the service publishes (src/service). The
 * values come from the modules themselves; the words come from the comments beside them in the
 * two source files, so a new code documented where it is declared is documented here.
 */
import { ERROR_EXIT_CODES, EXIT } from '../../common/index.js';
import { ERROR_CODES, JOB_ERROR_CODES, JOB_ERROR_REASONS, JOB_STATUSES } from '../../service/index.js';
import { cell, code, generatedHeader, table } from './markdown.js';

/** The source text of the two files whose comments describe the codes. */
export interface CodeSources {
  readonly exitCodesTs: string;
  readonly errorCodesTs: string;
}

/** The exit and error codes page. */
export function renderCodesReference(sources: CodeSources): string {
  const exitDocs = docCommentsOf(sources.exitCodesTs);
  const exitNames = new Map<number, string>(Object.entries(EXIT).map(([name, value]) => [value, name]));
  const lines = [
    ...generatedHeader('Exit and error codes', '`src/common/exit-codes.ts` and `src/service/error-codes.ts`'),
    '## Exit codes',
    '',
    'Every command uses the same table; every non-zero code is a failure.',
    '',
    ...table(
      ['code', 'name', 'meaning'],
      [...exitNames.entries()].sort(([a], [b]) => a - b).map(([value, name]) => [String(value), code(name), cell(exitDocs.get(name) ?? '')]),
    ),
    '',
    '## Error codes',
    '',
    "A `DeflowError` carries one of these codes (in messages, `--json` events, reports and journals); the command that it stops ends with the exit code beside it. Anything else that stops a command is a bug in deflow: exit 70.",
    '',
  ];
  const listed = new Set<string>();
  for (const [group, codes] of errorGroups(sources.errorCodesTs)) {
    const known = codes.filter((c) => Object.hasOwn(ERROR_EXIT_CODES, c));
    if (known.length === 0) continue;
    lines.push(`### ${group}`, '', ...table(['error code', 'exit code'], known.map((c) => [code(c), exitCell(ERROR_EXIT_CODES[c as keyof typeof ERROR_EXIT_CODES], exitNames)])), '');
    for (const c of known) listed.add(c);
  }
  const rest = Object.keys(ERROR_EXIT_CODES).filter((c) => !listed.has(c));
  if (rest.length > 0) {
    lines.push('### Other codes', '', ...table(['error code', 'exit code'], rest.map((c) => [code(c), exitCell(ERROR_EXIT_CODES[c as keyof typeof ERROR_EXIT_CODES], exitNames)])), '');
  }
  lines.push(
    '## Codes the service publishes',
    '',
    'What deAPI answers with, as deflow reads it ([the deAPI contract](../deapi-contract.md#errors)). These lists are open: a value not listed here is kept as the service sent it.',
    '',
    ...table(['error `code`', 'HTTP status'], Object.entries(ERROR_CODES).map(([c, status]) => [code(c), String(status)])),
    '',
    `Job \`status\` values: ${JOB_STATUSES.map(code).join(', ')}. A failed job's \`error_code\`: ${JOB_ERROR_CODES.map(code).join(', ')}; its \`error_reason\`: ${JOB_ERROR_REASONS.map(code).join(', ')}.`,
    '',
  );
  return `${lines.join('\n').trimEnd()}\n`;
}

function exitCell(value: number, names: ReadonlyMap<number, string>): string {
  const name = names.get(value);
  return name === undefined ? String(value) : `${value} (${name})`;
}

/** `name → text` of each `/** text *\/` comment right before a `name:` line. */
function docCommentsOf(source: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const match of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n\s*([A-Za-z_$][\w$]*)\s*:/g)) {
    docs.set(match[2]!, match[1]!.replace(/^\s*\*\s?/gm, '').replace(/\s+/g, ' ').trim());
  }
  return docs;
}

/** The error codes in the order of the source, under the `// …` comment that heads each group. */
function errorGroups(source: string): [string, string[]][] {
  const groups: [string, string[]][] = [];
  let current: [string, string[]] | undefined;
  for (const line of source.split('\n')) {
    const heading = /^\s*\/\/\s*(.+?)\s*$/.exec(line);
    if (heading) {
      current = [heading[1]!.replace(/[.:]$/, ''), []];
      groups.push(current);
      continue;
    }
    const entry = /^\s*(E_[A-Z0-9_]+)\s*:/.exec(line);
    if (entry) {
      if (!current) {
        current = ['Codes', []];
        groups.push(current);
      }
      current[1].push(entry[1]!);
    }
  }
  return groups;
}
