/** What "the same workflow" means when choosing the run to continue. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { canonicalJson } from '../../../common/index.js';
import type { JobGraph } from '../../../workflow/index.js';

/** sha256 of the workflow file's bytes and the resolved inputs: what "the same workflow" means. */
export async function digestWorkflow(graph: JobGraph): Promise<string> {
  const file = createHash('sha256').update(await readFile(graph.workflow.file)).digest('hex');
  let inputs: string;
  try {
    inputs = canonicalJson(graph.inputs);
  } catch {
    inputs = JSON.stringify(graph.inputs);
  }
  return createHash('sha256').update(`${file}\n${inputs}`).digest('hex');
}
