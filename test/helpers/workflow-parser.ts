/**
 * GitHub's own parser of workflow and action files (@actions/workflow-parser, the one behind
 * the Actions VS Code extension and language server). It imports its JSON schemas without an
 * import attribute, which Node refuses, so it is bundled once with esbuild (which takes them)
 * into a temp file and imported from there.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../../', import.meta.url).pathname;

export interface ParsedFile {
  /** The parser's errors, as it words them. */
  readonly errors: readonly string[];
  /** The workflow's or action's model (convertWorkflowTemplate / convertActionTemplate), when it parsed. */
  readonly model: any;
}

interface Parser {
  parseWorkflow(file: { name: string; content: string }): Promise<ParsedFile>;
  parseAction(file: { name: string; content: string }): ParsedFile;
}

let parser: Promise<Parser> | undefined;

/** The parser (bundled at the first call). */
export function workflowParser(): Promise<Parser> {
  parser ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deflow-workflow-parser-'));
    writeFileSync(
      join(dir, 'entry.mjs'),
      `import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction } from '@actions/workflow-parser/actions/index';
const trace = new NoOperationTraceWriter();
const messages = (context) => context.errors.getErrors().map((error) => error.message);
export async function parseWorkflowFile(file) {
  const parsed = parseWorkflow(file, trace);
  const model = parsed.value === undefined ? undefined : await convertWorkflowTemplate(parsed.context, parsed.value);
  return { errors: [...messages(parsed.context), ...(model?.errors ?? []).map((error) => error.Message ?? String(error))], model };
}
export function parseActionFile(file) {
  const parsed = parseAction(file, trace);
  const model = parsed.value === undefined ? undefined : convertActionTemplate(parsed.context, parsed.value);
  return { errors: messages(parsed.context), model };
}
`,
    );
    await build({ entryPoints: [join(dir, 'entry.mjs')], outfile: join(dir, 'parser.mjs'), bundle: true, format: 'esm', platform: 'node', nodePaths: [join(root, 'node_modules')], logLevel: 'warning' });
    const module = (await import(pathToFileURL(join(dir, 'parser.mjs')).href)) as { parseWorkflowFile: Parser['parseWorkflow']; parseActionFile: Parser['parseAction'] };
    return { parseWorkflow: module.parseWorkflowFile, parseAction: module.parseActionFile };
  })();
  return parser;
}
