/**
 * Reads the `::group::` blocks of a GitHub Actions log and checks them well formed as the runner
 * needs them: every group closed before the next opens (the runner does not nest groups), none
 * left open, and no deflow progress line (`[deflow] …`) inside a block.
 */
import { expect } from 'vitest';

export interface LogGroup {
  readonly title: string;
  readonly body: string[];
}

/** The blocks of `log`, in order; fails the test when they are not well formed. */
export function groupsOf(log: string): LogGroup[] {
  const groups: LogGroup[] = [];
  let open: LogGroup | null = null;
  for (const line of log.split('\n').filter((text) => text !== '')) {
    if (line.startsWith('::group::')) {
      expect(open, `a group opened inside ${open?.title ?? ''}`).toBeNull();
      open = { title: line.slice('::group::'.length), body: [] };
    } else if (line === '::endgroup::') {
      expect(open, 'an endgroup with no group open').not.toBeNull();
      groups.push(open!);
      open = null;
    } else if (open !== null) {
      expect(line, `a progress line inside ${open.title}`).not.toMatch(/^\[deflow\]/);
      open.body.push(line);
    }
  }
  expect(open, 'a group left open').toBeNull();
  return groups;
}

