export { writeChunksAtomic } from './atomic-write.js';
export { renderQuoteMarkdown } from './quote-markdown.js';
export { renderQuoteTable } from './quote-table.js';
export { createReporters } from './select-renderers.js';
export { formatCost, formatTotal } from './format-cost.js';
export { EVENT_LOG_NAME, EventLogRenderer, readEventLog } from './event-log.js';
export { writeHtmlReport } from './write-html-report.js';
