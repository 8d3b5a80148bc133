/** A path inside the workflow document: map keys and sequence indexes. */
export type DocPath = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Renders a document path the way errors print it: `steps.speak.with.voice`, `needs[1]`,
 * `steps["my step"]`; the document itself is `workflow`.
 */
export function formatPath(path: DocPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? 'workflow' : out;
}
