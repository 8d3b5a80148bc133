/**
 * The comments in src/ cite only what a reader of the repository can open: a Markdown file they
 * name exists in the repository (and a `#section` of it exists), and they cite no numbered
 * section ("§3") of a document kept elsewhere. Facts about the service are cited as sections of
 * docs/deapi-contract.md.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { anchorsOf } from '../helpers/markdown-anchors.js';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(name) ? [path] : [];
  });
}

/** Every comment of a TypeScript source, with its line. */
function commentsOf(fileName: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const comments: { line: number; text: string }[] = [];
  const take = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push({ line: source.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) });
    }
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  take(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return comments.sort((a, b) => a.line - b.line);
}

/** What is wrong with the citations in one comment of `file`, if anything. */
function citationProblems(file: string, comment: string): string[] {
  const problems: string[] = [];
  for (const match of comment.matchAll(/(?<![\w/.-])((?:\.{1,2}\/|[\w-]+\/)*[\w.-]+\.md)(?:#([\w-]+))?/g)) {
    const [, path, anchor] = match as unknown as [string, string, string | undefined];
    const target = [resolve(root, path), resolve(dirname(file), path)].find((p) => existsSync(p));
    if (target === undefined) {
      problems.push(`${path} is not in the repository: cite a section of docs/ instead (service facts: docs/deapi-contract.md#<section>)`);
    } else if (anchor !== undefined && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
      problems.push(`${path} has no section #${anchor}`);
    }
  }
  if (comment.includes('§')) problems.push('cites a numbered section (§) of a document outside the repository: cite docs/deapi-contract.md#<section>');
  return problems;
}

describe('citations in the comments of src/', () => {
  it('finds comments with the TypeScript parser, not in strings', () => {
    const comments = commentsOf('x.ts', "// one\nconst url = 'https://x.md/issue 8';\n/** two (service-facts.md §2) */\nexport const a = 1; // three\n");
    expect(comments.map((c) => [c.line, c.text])).toEqual([
      [1, '// one'],
      [3, '/** two (service-facts.md §2) */'],
      [4, '// three'],
    ]);
  });

  it('flags a file outside the repository, a missing section and a §', () => {
    const file = join(root, 'src', 'x.ts');
    expect(citationProblems(file, '// see docs/deapi-contract.md#rate-limits and README.md')).toEqual([]);
    expect(citationProblems(file, '// (service-facts.md §5)')).toHaveLength(2);
    expect(citationProblems(file, '// spec/service-interface.md')).toHaveLength(1);
    expect(citationProblems(file, '// docs/deapi-contract.md#no-such-section')).toEqual(['docs/deapi-contract.md has no section #no-such-section']);
  });

  it('cite only files and sections in the repository', () => {
    const problems = sourceFiles(join(root, 'src')).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      if (!/\.md\b|§/.test(text)) return [];
      return commentsOf(file, text).flatMap((comment) => citationProblems(file, comment.text).map((p) => `${relative(root, file)}:${comment.line}: ${p}`));
    });
    expect(problems).toEqual([]);
  });
});
