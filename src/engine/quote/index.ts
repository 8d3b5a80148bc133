export { openQuoteCache } from './quote-cache.js';
export { compareQuotes, readQuoteFile } from './quote-compare.js';
export type { QuoteComparison, QuoteDelta } from './quote-compare.js';
export { quoteInputFromGraph } from './quote-input-from-graph.js';
export { clientPriceSource } from './quote-price-source.js';
export type { PriceMethod, Quote, QuoteTotal, QuotedStep } from './quote-types.js';
export { DEFAULT_FIT_THRESHOLD, DEFAULT_MAX_PRICE_REQUESTS, quoteRun } from './quote.js';
