export { accountPrefix, accountScope } from './account-scope.js';
export { openSharedGovernor } from './open-governor.js';
export type { OpenGovernorOptions, SharedGovernor } from './open-governor.js';
export { RedisGovernor } from './redis-governor.js';
export type { RedisGovernorOptions } from './redis-governor.js';
export { openRedis } from './redis-connection.js';
export { describeRedisUrl, parseRedisUrl } from './redis-url.js';
export type { RedisTarget } from './redis-url.js';
