/**
 * The README is a front door of at most 300 lines, and every link between the README and the
 * pages of docs/ leads somewhere: the file exists, and a `#anchor` names a heading of it (as
 * GitHub makes anchors from headings).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, markdownProse as prose } from '../helpers/markdown-anchors.js';

const root = join(import.meta.dirname, '..', '..');
const README_MAX_LINES = 300;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The relative links of a Markdown text: `[text](target)`, outside code. */
function linksOf(text: string): string[] {
  const withoutInlineCode = prose(text).replace(/`[^`\n]*`/g, '');
  return [...withoutInlineCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

const pages = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

describe('the README', () => {
  it(`has at most ${README_MAX_LINES} lines (details belong in docs/)`, () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n').length;
    expect(lines, `README.md has ${lines} lines: move details into a page of docs/ and link it`).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('links every guide of docs/', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const guides = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));
    const unlinked = guides.filter((name) => !readme.includes(`](docs/${name}`));
    expect(unlinked, 'pages of docs/ the README does not link').toEqual([]);
  });
});

describe('links in README.md and docs/', () => {
  it('the anchors are made as GitHub makes them', () => {
    const anchors = anchorsOf('# Paid means kept: a result is never bought twice\n## `deflow status`\n## Resume\n## Resume\n```\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['paid-means-kept-a-result-is-never-bought-twice', 'deflow-status', 'resume', 'resume-1']);
  });

  for (const page of pages) {
    const name = relative(root, page);
    it(`${name}: every relative link names an existing file and heading`, () => {
      const broken: string[] = [];
      for (const link of linksOf(readFileSync(page, 'utf8'))) {
        const [path, anchor] = link.split('#', 2) as [string, string | undefined];
        const target = path === '' ? page : resolve(dirname(page), decodeURI(path));
        if (!existsSync(target)) {
          broken.push(`${link}: no such file`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${link}: no heading with anchor #${anchor} in ${relative(root, target)}`);
        }
      }
      expect(broken, `broken links in ${name}`).toEqual([]);
    });
  }
});
