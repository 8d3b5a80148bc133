export * from './endpoints.js';
export * from './error-codes.js';
export * from './file-rules.js';
export * from './model-catalogue.js';
export * from './rate-limit-headers.js';
export * from './tasks.js';
export type * from './types.js';
export * from './media-platforms.js';
