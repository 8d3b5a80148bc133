export { findRunWebhookSecret, readRunWebhookSecret, startWebhookHints } from './webhook-hints.js';
export type { JobWakeups, WebhookHints } from './webhook-hints.js';
export type { WebhookHint } from './webhook-receiver.js';
export { AdoptionDesk } from './adoption-desk.js';
export { type Adoption, readAdoptions } from './adoption-log.js';
export { DeliveryDrain } from './delivery-drain.js';
