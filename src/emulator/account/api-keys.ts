/**
 * API keys and who may call what (spec, Authentication): bearer tokens looked up as opaque
 * strings, 401 codes for a missing, unknown, revoked or expired key, and the role check.
 */
import type { Clock } from '../../common/index.js';
import { createIpAllowList, type IpAllowList } from '../protocol/ip-allow.js';
import type { KeyConfig } from '../types.js';
import { toMicros } from '../../common/index.js';

/** A key the emulator knows. */
export interface ApiKey {
  readonly id: number;
  readonly secret: string;
  readonly role: 'admin' | 'api';
  readonly name: string;
  readonly status: 'active' | 'revoked';
  /** Virtual epoch ms, or null for no expiry. */
  readonly expiresAtMs: number | null;
  readonly ipWhitelist: readonly string[];
  readonly allowList: IpAllowList;
  /** Spend limit in micro-dollars, or null. */
  readonly limitMicros: number | null;
  readonly createdAtMs: number;
  lastUsedAtMs: number;
}

/** The 401 `code` of a refused credential (docs/deapi-contract.md#authentication-and-keys). */
export type AuthFailure = 'missing_key' | 'invalid_key' | 'key_revoked' | 'key_expired';

export type AuthResult = { readonly ok: true; readonly key: ApiKey } | { readonly ok: false; readonly code: AuthFailure };

/** A new key's settings (POST /api/v2/keys or the config). */
export interface NewKey {
  readonly secret: string;
  readonly role: 'admin' | 'api';
  readonly name: string;
  readonly status?: 'active' | 'revoked';
  readonly expiresAtMs: number | null;
  readonly ipWhitelist: readonly string[];
  readonly limitMicros: number | null;
}

/** The keys of the emulated account. */
export class KeyStore {
  readonly #clock: Clock;
  readonly #bySecret = new Map<string, ApiKey>();
  readonly #keys: ApiKey[] = [];

  constructor(keys: readonly KeyConfig[], clock: Clock) {
    this.#clock = clock;
    for (const key of keys) {
      this.add({
        secret: key.secret,
        role: key.role,
        name: key.name,
        status: key.status,
        expiresAtMs: key.expires_at === null ? null : Date.parse(key.expires_at),
        ipWhitelist: key.ip_whitelist,
        limitMicros: key.limit === null ? null : toMicros(key.limit),
      });
    }
  }

  /** Checks the `Authorization` header of a request. */
  authenticate(authorization: string | undefined): AuthResult {
    const token = readBearer(authorization);
    if (token === null) return { ok: false, code: 'missing_key' };
    const key = this.#bySecret.get(token);
    if (!key) return { ok: false, code: 'invalid_key' };
    if (key.status === 'revoked') return { ok: false, code: 'key_revoked' };
    const now = this.#clock.now();
    if (key.expiresAtMs !== null && now >= key.expiresAtMs) return { ok: false, code: 'key_expired' };
    key.lastUsedAtMs = now;
    return { ok: true, key };
  }

  /** Adds a key; ids count up from 1 in creation order. */
  add(input: NewKey): ApiKey {
    const now = this.#clock.now();
    const key: ApiKey = {
      id: this.#keys.length + 1,
      secret: input.secret,
      role: input.role,
      name: input.name,
      status: input.status ?? 'active',
      expiresAtMs: input.expiresAtMs,
      ipWhitelist: [...input.ipWhitelist],
      allowList: createIpAllowList(input.ipWhitelist),
      limitMicros: input.limitMicros,
      createdAtMs: now,
      lastUsedAtMs: now,
    };
    this.#keys.push(key);
    this.#bySecret.set(key.secret, key);
    return key;
  }

  /** True when a key already uses `secret`. */
  has(secret: string): boolean {
    return this.#bySecret.has(secret);
  }

  /** Keys that can still authenticate (active and not expired). */
  activeCount(): number {
    const now = this.#clock.now();
    return this.#keys.filter((k) => k.status === 'active' && (k.expiresAtMs === null || now < k.expiresAtMs)).length;
  }

  /** Every key, in creation order. */
  all(): readonly ApiKey[] {
    return this.#keys;
  }
}

/** The token of `Authorization: Bearer <token>`, or null when there are no bearer credentials. */
export function readBearer(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const match = /^\s*bearer\s+(\S.*?)\s*$/i.exec(authorization);
  return match?.[1] ?? null;
}

/** True when a key's role covers an endpoint's (`admin` endpoints need an ADMIN key). */
export function roleCovers(key: ApiKey, required: 'any' | 'admin'): boolean {
  return required === 'any' || key.role === 'admin';
}

/** The masked form of a secret: never any of it unless it is long enough to show 4 of many. */
export function previewSecret(secret: string): string {
  return secret.length >= 16 ? `••••${secret.slice(-4)}` : '••••';
}
