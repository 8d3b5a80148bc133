/**
 * A Quote as GitHub-flavoured Markdown, ready for a pull-request comment or
 * `$GITHUB_STEP_SUMMARY`: the verdict first, a table per step, then the fits, assumptions
 * and unknown items in a collapsed section, and the change against an earlier quote.
 */
import type { QuoteComparison } from '../../engine/index.js';
import type { Quote } from '../../engine/index.js';
import { formatCost } from '../format-cost.js';
import { codeSpan, escapeMarkdown, renderMarkdownTable } from './markdown-text.js';
import { budgetLines, describeStepCounts, formatAlreadyHave, explanationLines, formatChange, formatEstimated, formatSubtotal, formatUnitRange, unknownLines } from '../quote-table.js';

/** The quote as Markdown. */
export function renderQuoteMarkdown(quote: Quote, comparison?: QuoteComparison): string {
  const t = quote.total;
  const verdict = quote.verdict === 'within' || quote.verdict === 'no-budget' ? '✅' : '❌';
  const out: string[] = [`## ${verdict} Quote: ${codeSpan(quote.workflow)}`, ''];
  if (quote.prices_unavailable) out.push(`**Prices could not be obtained:** ${escapeMarkdown(quote.prices_unavailable.message)}`, '');
  const facts = [
    `**To pay: ${escapeMarkdown(formatSubtotal(t))}**`,
    `exact ${formatCost(t.exact)} + estimated ${escapeMarkdown(formatEstimated(t))}`,
    `already have: ${escapeMarkdown(formatAlreadyHave(quote))}`,
  ];
  const verdicts = budgetLines(quote);
  facts.push(`balance ${escapeMarkdown(verdicts.balance)}`);
  if (verdicts.budget) facts.push(`budget ${escapeMarkdown(verdicts.budget)}`);
  facts.push(`${quote.price_requests} price request${quote.price_requests === 1 ? '' : 's'} sent`);
  out.push(facts.join(' · '), '');
  const rows = quote.steps.map((s) => [
    codeSpan(s.id),
    codeSpan(s.task),
    s.model ? codeSpan(s.model) : '—',
    String(s.items),
    String(s.already_have.items),
    escapeMarkdown(formatUnitRange(s)),
    escapeMarkdown(formatSubtotal(s.subtotal)),
    escapeMarkdown(describeStepCounts(s)),
  ]);
  out.push(
    ...renderMarkdownTable(
      [
        { title: 'Step' },
        { title: 'Task' },
        { title: 'Model' },
        { title: 'Items', align: 'right' },
        { title: 'Have', align: 'right' },
        { title: 'Unit price' },
        { title: 'To pay', align: 'right' },
        { title: 'How obtained' },
      ],
      rows,
    ),
  );
  const why = explanationLines(quote);
  const details: string[] = [];
  const section = (title: string, entries: readonly string[]): void => {
    if (entries.length > 0) details.push('', `**${title}**`, '', ...entries.map((e) => `- ${escapeMarkdown(e)}`));
  };
  section('Fits', why.fits);
  section('Assumptions', why.assumptions);
  section('Unknown', unknownLines(quote, why));
  section('Warnings', quote.warnings);
  if (details.length > 0) out.push('', '<details><summary>How the prices were obtained</summary>', ...details, '', '</details>');
  if (comparison) {
    out.push('', `### Change against ${codeSpan(comparison.previous)}`, '');
    const change = [...comparison.steps, comparison.total].map((d) => [
      d.id === 'total' ? '**total**' : codeSpan(d.id),
      formatCost(d.before),
      formatCost(d.after),
      escapeMarkdown(formatChange(d)),
    ]);
    out.push(...renderMarkdownTable([{ title: 'Step' }, { title: 'Before', align: 'right' }, { title: 'After', align: 'right' }, { title: 'Change', align: 'right' }], change));
  }
  return `${out.join('\n')}\n`;
}
