import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeflowError } from '../../src/common/deflow-error.js';
import { loadEmulatorConfig } from '../../src/emulator/config/config.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deflow-emulator-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function failure(source: Parameters<typeof loadEmulatorConfig>[0]): Promise<DeflowError> {
  try {
    await loadEmulatorConfig(source, { cwd: dir });
  } catch (error) {
    if (error instanceof DeflowError) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('defaults', () => {
  it('an empty config resolves to the spec profile, no tier and the permissive demo rates', async () => {
    const { keys, ...config } = await loadEmulatorConfig({});
    expect(config).toEqual({
      profile: 'spec',
      tier: null,
      time_scale: 1,
      balance: 100,
      seed: 1,
      max_active_keys: 10,
      rate_limits: {
        minute_window_s: 60,
        day_window_s: 86400,
        generation: { rpm: 300, rpd: null },
        endpoints: {},
        fallback: { rpm: 60, rpd: null },
        quote: { rpm: 600, rpd: null },
        enhancement: { rpm: 60, rpd: null },
        jobs_status: { rpm: 600, rpd: null },
        models: {},
        key_creation_per_hour: 10,
        ip_refusals_before_429: 5,
        retry_after_offset_s: 0,
      },
      jobs: { duration_ms: 1500, durations: {}, jitter: 0, queue_share: 0.1, fail_rate: 0, scale_by_input: true },
      faults: { error_500_rate: 0, reset_rate: 0, latency_ms: 0, truncate_rate: 0, drop_answer_rate: 0 },
      webhooks: { secret: null, allow_http: false, retry_schedule_s: [0, 60, 120, 300, 600, 1800, 3600, 10800, 21600, 43200], timeout_ms: 10000, breaker_threshold: 10, breaker_stops_per_request: false },
      payments: null,
    });
    expect(keys.map((k) => k.role)).toEqual(['admin', 'api']);
    for (const key of keys) {
      expect(key).toMatchObject({ status: 'active', expires_at: null, ip_whitelist: [], limit: null });
      expect(key.secret.length).toBeGreaterThanOrEqual(16);
    }
  });

  it('generated keys follow the seed', async () => {
    const a = await loadEmulatorConfig({ seed: 7 });
    const b = await loadEmulatorConfig({ seed: 7 });
    const c = await loadEmulatorConfig({ seed: 8 });
    expect(a.keys).toEqual(b.keys);
    expect(a.keys[0]?.secret).not.toBe(c.keys[0]?.secret);
  });

  it('a rate given as { rpm } has no daily limit; key fields get their defaults', async () => {
    const config = await loadEmulatorConfig({ rate_limits: { endpoints: { 'images/generations': { rpm: 3 } } }, keys: [{ secret: 'abc' }] });
    expect(config.rate_limits.endpoints['images/generations']).toEqual({ rpm: 3, rpd: null });
    expect(config.keys).toEqual([{ secret: 'abc', role: 'api', name: 'key 1', status: 'active', expires_at: null, ip_whitelist: [], limit: null }]);
  });

  it('reads the issue example as YAML', async () => {
    const path = await file(
      'example.yaml',
      `time_scale: 1
balance: 100
keys:
  - { secret: "sk-admin-0123456789abcdef", role: admin, name: "ci admin", status: active, expires_at: null, ip_whitelist: [] }
rate_limits:
  minute_window_s: 60
  day_window_s: 86400
  generation: { rpm: 300, rpd: null }
  endpoints: { images/generations: { rpm: 3, rpd: 100 } }
  quote: { rpm: 600 }
  enhancement: { rpm: 60 }
  jobs_status: { rpm: 600 }
  models: { Flux1schnell: { rpm: 10 } }
  key_creation_per_hour: 10
  ip_refusals_before_429: 5
jobs: { duration_ms: 1500, fail_rate: 0 }
faults: { error_500_rate: 0, reset_rate: 0, latency_ms: 0, truncate_rate: 0 }
`,
    );
    const config = await loadEmulatorConfig(path);
    expect(config.rate_limits.endpoints).toEqual({ 'images/generations': { rpm: 3, rpd: 100 } });
    expect(config.rate_limits.models).toEqual({ Flux1schnell: { rpm: 10, rpd: null } });
    expect(config.keys[0]).toMatchObject({ role: 'admin', name: 'ci admin' });
  });

  it('reads JSON files too', async () => {
    const path = await file('c.json', JSON.stringify({ balance: 5, rate_limits: { jobs_status: null } }));
    const config = await loadEmulatorConfig(path);
    expect(config.balance).toBe(5);
    expect(config.rate_limits.jobs_status).toBeNull();
  });
});

describe('located errors', () => {
  it('an unknown top-level key is refused with its line:col and a suggestion', async () => {
    const path = await file('typo.yaml', 'balance: 10\nrate_limit:\n  quote: { rpm: 1 }\n');
    const error = await failure(path);
    expect(error.code).toBe('E_CONFIG_SCHEMA');
    expect(error.message).toBe(`${path}:2:1: rate_limit: unknown key; did you mean "rate_limits"?`);
  });

  it('a wrong type says where, what was expected and what was found', async () => {
    const error = await failure(await file('type.yaml', 'rate_limits:\n  generation:\n    rpm: fast\n'));
    expect(error.message).toMatch(/type\.yaml:3:10: rate_limits\.generation\.rpm: expected integer, got string "fast"$/);
  });

  it('an enum violation lists the allowed values', async () => {
    const error = await failure(await file('role.yaml', 'keys:\n  - secret: abc\n    role: root\n'));
    expect(error.message).toMatch(/role\.yaml:3:11: keys\[0\]\.role: expected one of "admin", "api", got string "root"$/);
  });

  it('a bad IP whitelist entry is located', async () => {
    const error = await failure(await file('ip.yaml', 'keys:\n  - secret: abc\n    ip_whitelist: [127.0.0.1, 10.0.0.0/33]\n'));
    expect(error.message).toMatch(/ip\.yaml:3:31: keys\[0\]\.ip_whitelist\[1\]: expected an IP address or CIDR range, got "10\.0\.0\.0\/33"$/);
  });

  it('an unknown endpoint or model override is refused with a suggestion', async () => {
    const endpoint = await failure(await file('ep.yaml', 'rate_limits:\n  endpoints:\n    images/generation: { rpm: 3 }\n'));
    expect(endpoint.message).toMatch(/ep\.yaml:3:5: rate_limits\.endpoints\.images\/generation: unknown submission endpoint .*did you mean "images\/generations"\?$/);
    const model = await failure(await file('model.yaml', 'rate_limits:\n  models:\n    Flux1Schnel: { rpm: 3 }\n'));
    expect(model.message).toMatch(/model\.yaml:3:5: rate_limits\.models\.Flux1Schnel: unknown model slug; did you mean "Flux1schnell"\?$/);
  });

  it('a number out of range is refused', async () => {
    const error = await failure(await file('range.yaml', 'faults:\n  error_500_rate: 1.5\n'));
    expect(error.message).toMatch(/range\.yaml:2:19: faults\.error_500_rate: expected a number <= 1, got number 1.5$/);
  });

  it('a missing required key points at its object', async () => {
    const error = await failure(await file('missing.yaml', 'keys:\n  - role: admin\n'));
    expect(error.message).toMatch(/missing\.yaml:2:5: keys\[0\]: expected key "secret", got none$/);
  });

  it('duplicate secrets are refused without printing the secret', async () => {
    const error = await failure(await file('dup.yaml', 'keys:\n  - secret: same-secret-value\n  - secret: same-secret-value\n'));
    expect(error.message).toMatch(/dup\.yaml:3:13: keys\[1\]\.secret: /);
    expect(error.message).not.toContain('same-secret-value');
  });

  it('YAML syntax errors are located', async () => {
    const error = await failure(await file('syntax.yaml', 'balance: 10\nkeys: [\n'));
    expect(error.code).toBe('E_CONFIG_PARSE');
    expect(error.message).toMatch(/syntax\.yaml:\d+:\d+: \S/);
    expect(error.message).not.toContain('\n');
  });

  it('a YAML alias bomb is a coded E_CONFIG_PARSE error, not a crash (exit 70)', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const name of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']) levels.push(`${name}: &${name} [${Array(9).fill(`*${levels.length === 1 ? 'a' : String.fromCharCode(name.charCodeAt(0) - 1)}`).join(',')}]`);
    const error = await failure(await file('bomb.yaml', `${levels.join('\n')}\n`));
    expect(error.code).toBe('E_CONFIG_PARSE');
    expect(error.message).toMatch(/bomb\.yaml: too many aliases \(more than 100 expansions\)/);
  });

  it('a JSON file error is located too', async () => {
    const error = await failure(await file('bad.json', '{\n  "balance": "lots"\n}\n'));
    expect(error.message).toMatch(/bad\.json:2:14: balance: expected number, got string "lots"$/);
  });

  it('a missing file is E_CONFIG_READ', async () => {
    const error = await failure('does-not-exist.yaml');
    expect(error.code).toBe('E_CONFIG_READ');
    expect(error.message).toContain('does-not-exist.yaml');
  });

  it('a config object in code reports the path without a position', async () => {
    const error = await failure({ time_scale: 0 });
    expect(error.message).toBe('emulator config: time_scale: expected a number > 0, got integer 0');
  });

  it('several problems come sorted by position, the first in the message', async () => {
    const error = await failure(await file('many.yaml', 'seed: x\nbalance: -1\n'));
    expect(error.message).toMatch(/many\.yaml:1:7: seed/);
    expect(error.details.problems).toHaveLength(2);
  });
});
