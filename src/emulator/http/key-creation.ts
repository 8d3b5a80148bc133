/**
 * POST /api/v2/keys (ADMIN): validates `{ name, role?, expires_at?, ip_whitelist? }`, enforces
 * the active-key cap (422 active_key_limit_reached) and answers 201 with the new key — the
 * only answer that ever carries a secret. The body shape is not shown in the spec; this is
 * the emulator's reading of it.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../common/index.js';
import type { Account } from '../account/account.js';
import type { ApiKey, KeyStore } from '../account/api-keys.js';
import { addError, MESSAGES, summariseErrors } from '../requests/error-messages.js';
import { isValidIpEntry } from '../protocol/ip-allow.js';
import { type ApiResponse, jsonResponse, validationResponse } from './responses.js';
import type { FieldErrors, ParsedBody } from '../types.js';

interface KeyRequest {
  readonly name: string;
  readonly role: 'admin' | 'api';
  readonly expiresAtMs: number | null;
  readonly ipWhitelist: string[];
}

/** Creates a key for an authorised request; `onCreated` counts it against the hourly cap. */
export function createApiKey(
  body: ParsedBody,
  services: { keys: KeyStore; account: Account; clock: Clock; maxActiveKeys: number },
  onCreated: () => Record<string, string>,
): ApiResponse {
  const errors: FieldErrors = {};
  const request = readKeyRequest(body.values, services.clock.now(), errors);
  if (!request) return validationResponse(errors, summariseErrors(errors));
  if (services.keys.activeCount() >= services.maxActiveKeys) {
    const message = `The account already has the maximum of ${services.maxActiveKeys} active API keys.`;
    return validationResponse({ keys: [message] }, message, 'active_key_limit_reached');
  }
  let secret = newSecret(services.keys.all().length + 1);
  while (services.keys.has(secret)) secret = newSecret(services.keys.all().length + 1);
  const key: ApiKey = services.keys.add({
    secret,
    role: request.role,
    name: request.name,
    expiresAtMs: request.expiresAtMs,
    ipWhitelist: request.ipWhitelist,
    limitMicros: null,
  });
  const headers = onCreated();
  return jsonResponse(201, { data: { ...services.account.describeKey(key), key: secret } }, headers);
}

function readKeyRequest(values: Readonly<Record<string, unknown>>, nowMs: number, errors: FieldErrors): KeyRequest | null {
  const name = values['name'];
  if (name === undefined || name === null || name === '') addError(errors, 'name', MESSAGES.required('name'));
  else if (typeof name !== 'string') addError(errors, 'name', MESSAGES.string('name'));
  else if (name.length > 255) addError(errors, 'name', MESSAGES.maxLength('name', 255));

  const rawRole = values['role'] ?? 'api';
  const role = typeof rawRole === 'string' ? rawRole.toLowerCase() : '';
  if (role !== 'admin' && role !== 'api') addError(errors, 'role', MESSAGES.enum('role'));

  let expiresAtMs: number | null = null;
  const rawExpiry = values['expires_at'];
  if (rawExpiry !== undefined && rawExpiry !== null && rawExpiry !== '') {
    const parsed = typeof rawExpiry === 'string' ? Date.parse(rawExpiry) : Number.NaN;
    if (Number.isNaN(parsed)) addError(errors, 'expires_at', 'The expires at field must be a valid date.');
    else if (parsed <= nowMs) addError(errors, 'expires_at', 'The expires at field must be a date after now.');
    else expiresAtMs = parsed;
  }

  const ipWhitelist: string[] = [];
  const rawList = values['ip_whitelist'];
  if (rawList !== undefined && rawList !== null) {
    if (!Array.isArray(rawList)) addError(errors, 'ip_whitelist', MESSAGES.array('ip_whitelist'));
    else {
      rawList.forEach((entry, i) => {
        if (typeof entry === 'string' && isValidIpEntry(entry)) ipWhitelist.push(entry.trim());
        else addError(errors, `ip_whitelist.${i}`, `The ip_whitelist.${i} field must be a valid IP address or CIDR range.`);
      });
    }
  }
  if (Object.keys(errors).length > 0) return null;
  return { name: name as string, role: role as 'admin' | 'api', expiresAtMs, ipWhitelist };
}

/** A Sanctum-style token `<id>|<40 random characters>`; random, never derived from the seed. */
function newSecret(id: number): string {
  return `${id}|${randomBytes(30).toString('base64url').slice(0, 40)}`;
}
