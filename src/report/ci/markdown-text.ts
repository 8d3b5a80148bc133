/** Text for a Markdown line: newlines folded to spaces, Markdown/HTML punctuation backslash-escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ').replace(/[\\`*_[\]<>|~&#]/g, (ch) => `\\${ch}`);
}

/** An inline code span that survives backticks and pipes inside `text` (pipes would split a table cell). */
export function codeSpan(text: string): string {
  const flat = text.replace(/\r\n|\r|\n/g, ' ').replace(/\|/g, '\\|');
  return flat.includes('`') ? `\`\` ${flat} \`\`` : `\`${flat}\``;
}

/** Cuts `text` to `max` characters, marking the cut with `…`. */
export function truncateText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A column of {@link renderMarkdownTable}. */
export interface MarkdownColumn {
  readonly title: string;
  /** @default 'left' */
  readonly align?: 'left' | 'right';
}

/**
 * A GitHub-flavoured Markdown table. Cells are Markdown already (escape plain text with
 * {@link escapeMarkdown}); the quote command's `--format markdown` reuses this.
 */
export function renderMarkdownTable(columns: readonly MarkdownColumn[], rows: readonly (readonly string[])[]): string[] {
  const header = `| ${columns.map((c) => escapeMarkdown(c.title)).join(' | ')} |`;
  const rule = `|${columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`;
  return [header, rule, ...rows.map((row) => `| ${row.join(' | ')} |`)];
}
