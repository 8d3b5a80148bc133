export { renderQuoteMarkdown } from './ci/quote-markdown.js';
export { renderQuoteTable } from './quote-table.js';
export { createReporters } from './terminal/select-renderers.js';
export { formatCost, formatTotal } from './format-cost.js';
export { EVENT_LOG_NAME, EventLogRenderer, readEventLog } from './terminal/event-log.js';
export { writeHtmlReport } from './html/write-html-report.js';
export { KEPT_REPORT_NAME, readKeptReport } from './files/kept-report.js';
export { ReportWriteError } from './files/report-write-error.js';
export { writeJUnit } from './ci/junit.js';
