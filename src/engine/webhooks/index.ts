export { readRunWebhookSecret, startWebhookHints } from './webhook-hints.js';
export type { JobWakeups, WebhookHints } from './webhook-hints.js';
export type { WebhookHint } from './webhook-receiver.js';
