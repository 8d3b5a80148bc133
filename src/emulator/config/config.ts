/**
 * The emulator's configuration: a YAML or JSON file (or an object in code) checked against
 * `schemas/emulator.schema.json` with ajv, defaults filled in from the schema, then named
 * semantic rules (IP entries, unique secrets, known endpoints and models). A bad config is
 * refused with a located error; it is never used half-valid.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { LineCounter, parseDocument } from 'yaml';
import { DeflowError, readNamedFile } from '../../common/index.js';
import { SUBMISSION_POOLS } from '../../service/index.js';
import { MODEL_CATALOGUE } from '../../service/index.js';
import { type ConfigOrigin, type ConfigProblem, describeSchemaError, didYouMean, formatProblem, locate } from './config-diagnostics.js';
import { isValidIpEntry } from '../protocol/ip-allow.js';
import { createRandom, randomHex } from './random.js';
import { applyTier } from '../limits/rate-tiers.js';
import type { EmulatorConfig, KeyConfig, RateConfig } from '../types.js';

type DeepPartial<T> = T extends readonly (infer U)[]
  ? readonly DeepPartial<U>[]
  : T extends object
    ? { readonly [K in keyof T]?: DeepPartial<T[K]> | undefined }
    : T;

/** A config given in code: any part of {@link EmulatorConfig}; a rate may leave out `rpd`. */
export type EmulatorConfigInput = DeepPartial<Omit<EmulatorConfig, 'keys' | 'rate_limits'>> & {
  readonly keys?: readonly (Partial<KeyConfig> & { readonly secret: string })[];
  readonly rate_limits?: DeepPartial<Omit<EmulatorConfig['rate_limits'], RateField | 'endpoints' | 'models'>> & {
    readonly [K in RateField]?: RateInput | null;
  } & {
    readonly endpoints?: Readonly<Record<string, RateInput | null>>;
    readonly models?: Readonly<Record<string, RateInput | null>>;
  };
};
type RateField = 'generation' | 'fallback' | 'quote' | 'enhancement' | 'jobs_status';
type RateInput = Partial<RateConfig> & { readonly rpm: number };

/** Top-level keys a caller may set over whatever the config says (the CLI's `--profile` and `--tier`). */
export interface ConfigOverrides {
  readonly profile?: EmulatorConfig['profile'];
  readonly tier?: 'basic' | 'premium';
  /** Emulator seconds per real second (`deflow emulator --time-scale N`). */
  readonly time_scale?: number;
}

/**
 * Loads a config: a file path (YAML or JSON, relative to `cwd`), an object, or nothing for
 * the defaults; `overrides` replace those top-level keys. Throws a DeflowError `E_CONFIG_…`
 * with a located message.
 */
export async function loadEmulatorConfig(
  source?: string | EmulatorConfigInput,
  options: { cwd?: string; overrides?: ConfigOverrides } = {},
): Promise<EmulatorConfig> {
  if (typeof source === 'string') {
    const path = resolve(options.cwd ?? process.cwd(), source);
    const text = await readNamedFile(path, 'E_CONFIG_READ', 'the emulator config', source);
    return parseEmulatorConfig(text, source, options.overrides);
  }
  // A JSON round trip drops `undefined` members, which a schema cannot describe.
  const raw: unknown = source === undefined ? {} : JSON.parse(JSON.stringify(source));
  return resolveEmulatorConfig(withOverrides(raw, options.overrides), { file: 'emulator config' });
}

function withOverrides(raw: unknown, overrides: ConfigOverrides | undefined): unknown {
  const set = Object.fromEntries(Object.entries(overrides ?? {}).filter(([, value]) => value !== undefined));
  if (Object.keys(set).length === 0 || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  return { ...raw, ...set };
}

/** Parses YAML or JSON text and resolves it. */
/** Alias expansions a config may make (the yaml library's default, kept on purpose). */
const MAX_CONFIG_ALIASES = 100;

export function parseEmulatorConfig(text: string, file: string, overrides?: ConfigOverrides): EmulatorConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const syntax = document.errors[0];
  if (syntax) {
    const pos = syntax.linePos?.[0];
    const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
    const what = (syntax.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new DeflowError('E_CONFIG_PARSE', `${where}: ${what}`, { details: { file } });
  }
  let raw: unknown;
  try {
    // The yaml library's default budget (100 alias expansions) refuses a billion-laughs file.
    raw = document.toJS({ maxAliasCount: MAX_CONFIG_ALIASES }) ?? {};
  } catch (error) {
    const reason = error instanceof ReferenceError && /alias/i.test(error.message) ? `too many aliases (more than ${MAX_CONFIG_ALIASES} expansions): refused as a possible resource exhaustion attack` : `cannot build the document (${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)})`;
    throw new DeflowError('E_CONFIG_PARSE', `${file}: ${reason}`, { cause: error, details: { file } });
  }
  return resolveEmulatorConfig(withOverrides(raw, overrides), { file, document, lineCounter });
}

/** Validates a parsed config, fills in defaults and generated keys. */
export function resolveEmulatorConfig(raw: unknown, origin: ConfigOrigin): EmulatorConfig {
  // What the config itself says, before the schema fills in defaults.
  const given = givenKeys(raw);
  const validate = compileSchema();
  const problems: ConfigProblem[] = [];
  if (!validate(raw)) {
    for (const error of validate.errors ?? []) problems.push(describeSchemaError(error, origin, raw));
  } else {
    problems.push(...checkSemantics(raw as RawConfig, origin));
  }
  if (problems.length > 0) {
    const sorted = dedupe(problems).sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0));
    const lines = sorted.map((p) => formatProblem(origin, p));
    throw new DeflowError('E_CONFIG_SCHEMA', lines[0] as string, { details: { file: origin.file, problems: lines } });
  }
  return finish(raw as RawConfig, given);
}

/** The keys a config sets itself: those of `rate_limits`, and whether `webhooks.secret` is set. */
interface GivenKeys {
  readonly rateLimits: ReadonlySet<string>;
  readonly webhookSecret: boolean;
}

function givenKeys(raw: unknown): GivenKeys {
  const object = (value: unknown): Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const root = object(raw);
  return {
    rateLimits: new Set(Object.keys(object(root.rate_limits))),
    webhookSecret: Object.hasOwn(object(root.webhooks), 'secret'),
  };
}

/** The config after the schema: defaults filled in, `keys` and key names still optional. */
type RawConfig = Omit<EmulatorConfig, 'keys'> & {
  $schema?: string;
  keys?: (Omit<KeyConfig, 'name'> & { name?: string })[];
};

function finish(raw: RawConfig, given: GivenKeys): EmulatorConfig {
  const { $schema: _schema, keys, ...rest } = raw;
  const named = (keys ?? []).map((k, i) => ({ ...k, name: k.name ?? `key ${i + 1}` }));
  const rateLimits = rest.tier === null ? rest.rate_limits : applyTier(rest.rate_limits, rest.tier, given.rateLimits);
  // The live profile signs deliveries as an account with a dashboard secret would; an explicit
  // `secret: null` keeps them unsigned.
  const generateSecret = rest.profile === 'live' && !given.webhookSecret;
  const webhooks = generateSecret ? { ...rest.webhooks, secret: generateWebhookSecret(raw.seed) } : rest.webhooks;
  return { ...rest, rate_limits: rateLimits, webhooks, keys: named.length > 0 ? named : generateKeys(raw.seed) };
}

/** The account-default webhook secret of the live profile, derived from the seed (64 hex characters). */
function generateWebhookSecret(seed: number): string {
  return `emu_whsec_${randomHex(createRandom(seed, 'webhook-secret'), 64)}`;
}

/** One admin and one api key, derived from the seed so a restart keeps them. */
function generateKeys(seed: number): KeyConfig[] {
  const random = createRandom(seed, 'keys');
  const key = (role: 'admin' | 'api'): KeyConfig => ({
    secret: `emu_${role}_${randomHex(random, 32)}`,
    role,
    name: `emulator ${role} key`,
    status: 'active',
    expires_at: null,
    ip_whitelist: [],
    limit: null,
  });
  return [key('admin'), key('api')];
}

function checkSemantics(config: RawConfig, origin: ConfigOrigin): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, number>();
  (config.keys ?? []).forEach((key, i) => {
    key.ip_whitelist.forEach((entry, j) => {
      if (!isValidIpEntry(entry)) {
        problems.push(locate(origin, ['keys', i, 'ip_whitelist', j], 'value', `expected an IP address or CIDR range, got ${JSON.stringify(entry)}`));
      }
    });
    const first = seen.get(key.secret);
    if (first !== undefined) {
      problems.push(locate(origin, ['keys', i, 'secret'], 'value', `expected a secret no other key uses, got the secret of keys[${first}]`));
    } else seen.set(key.secret, i);
  });
  const pools = [...SUBMISSION_POOLS];
  const slugs = MODEL_CATALOGUE.map((m) => m.slug);
  const unknownKeys = (segments: string[], names: string[], known: string[], what: string): void => {
    for (const name of names) {
      if (!known.includes(name)) problems.push(locate(origin, [...segments, name], 'key', `unknown ${what}${didYouMean(name, known)}`));
    }
  };
  unknownKeys(['rate_limits', 'endpoints'], Object.keys(config.rate_limits.endpoints), pools, 'submission endpoint (a v2 path under /api/v2/)');
  unknownKeys(['rate_limits', 'models'], Object.keys(config.rate_limits.models), slugs, 'model slug');
  unknownKeys(['jobs', 'durations'], Object.keys(config.jobs.durations), pools, 'submission endpoint (a v2 path under /api/v2/)');
  return problems;
}

function dedupe(problems: ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\0${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/;

let compiled: ValidateFunction | undefined;

/** The schema validator, compiled once per process (it is immutable). */
function compileSchema(): ValidateFunction {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(EMULATOR_SCHEMA_URL, 'utf8')) as object;
  const ajv = new Ajv({ allErrors: true, useDefaults: true, allowUnionTypes: true, strict: true, verbose: true });
  ajv.addFormat('date-time', (value: string) => ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
  compiled = ajv.compile(schema);
  return compiled;
}

/**
 * The JSON Schema file of the config: the nearest `schemas/emulator.schema.json` above this
 * module, so it is found from `src/` (tests), `dist/` (the package) and `dist-bench/src/`.
 */
export const EMULATOR_SCHEMA_URL = findUp('schemas/emulator.schema.json');

function findUp(relative: string): URL {
  let dir = new URL('../', import.meta.url);
  for (let depth = 0; depth < 6; depth += 1) {
    const candidate = new URL(relative, dir);
    if (existsSync(candidate)) return candidate;
    dir = new URL('../', dir);
  }
  return new URL(`../../${relative}`, import.meta.url);
}
