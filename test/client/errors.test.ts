import { describe, expect, test } from 'vitest';
import { ApiError } from '../../src/client/errors/api-error.js';
import { AuthError } from '../../src/client/errors/auth-error.js';
import { InsufficientBalanceError } from '../../src/client/errors/insufficient-balance-error.js';
import { KeyLimitError } from '../../src/client/errors/key-limit-error.js';
import { NotFoundError } from '../../src/client/errors/not-found-error.js';
import { PermissionError } from '../../src/client/errors/permission-error.js';
import { ValidationError } from '../../src/client/errors/validation-error.js';
import { DeflowError, exitCodeFor } from '../../src/common/deflow-error.js';
import { sendJson, useClient, useClientAt, useEmulator, useLocalServer } from './support.js';

const IMAGE = { prompt: 'a red bicycle', model: 'Flux1schnell', width: 512, height: 512, guidance: 0, steps: 4, seed: 1 };

describe('typed API errors', () => {
  test('401 is an AuthError with the service code, the request and no retry', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator, { apiKey: 'not-a-key-of-this-account' });
    const error = await client.balance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toBeInstanceOf(DeflowError);
    expect(error).toMatchObject({ code: 'E_API_AUTH', status: 401, serviceCode: 'invalid_key', method: 'GET', path: '/api/v2/account/balance' });
    expect((error as Error).message).toBe('GET /api/v2/account/balance: 401 Unauthenticated.');
    expect(emulator.stats().requests).toBe(1);
    expect(exitCodeFor(error)).toBe(3);
  });

  test('403 for a role that does not cover the endpoint is a PermissionError', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const error = await client.payments().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({ code: 'E_API_PERMISSION', status: 403, serviceCode: 'insufficient_permissions' });
    expect(exitCodeFor(error)).toBe(3);
  });

  test('422 is a ValidationError with the field messages', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const { prompt: _omitted, ...withoutPrompt } = IMAGE;
    const error = await client.submit('image.generate', withoutPrompt).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('E_API_VALIDATION');
    expect((error as ValidationError).errors.prompt).toEqual(['The prompt field is required.']);
    expect((error as Error).message).toMatch(/^POST \/api\/v2\/images\/generations: 422 The prompt field is required\./);
    expect(exitCodeFor(error)).toBe(1);
  });

  test('an unknown job is a NotFoundError', async () => {
    const emulator = await useEmulator();
    const client = useClient(emulator);
    const error = await client.jobStatus('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'E_API_NOT_FOUND', status: 404 });
  });

  test('a balance too low for the job is an InsufficientBalanceError', async () => {
    const emulator = await useEmulator({ balance: 0 });
    const client = useClient(emulator);
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientBalanceError);
    expect(error).toMatchObject({ code: 'E_API_BALANCE', status: 422, serviceCode: 'insufficient_balance' });
    expect(exitCodeFor(error)).toBe(3);
  });

  test("402 when the key's spend limit is used up is a KeyLimitError", async () => {
    const secret = 'limited-key-0123456789';
    const emulator = await useEmulator({ keys: [{ secret, role: 'api', limit: 0 }] });
    const client = useClient(emulator, { apiKey: secret });
    const error = await client.submit('image.generate', IMAGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeyLimitError);
    expect(error).toMatchObject({ code: 'E_API_KEY_LIMIT', status: 402, serviceCode: 'key_limit_exceeded' });
  });

  test('an unknown error code is dropped and the status kept', async () => {
    const server = await useLocalServer((req, res) => {
      if (req.url?.startsWith('/api/v2/account/balance')) sendJson(res, 418, { message: 'I am a teapot', code: 'brand_new_code' });
      else sendJson(res, 422, { message: 'Nope.', code: 'another_new_code', errors: { model: ['Nope.'] } });
    });
    const client = useClientAt(server.url);
    const teapot = await client.balance().catch((e: unknown) => e);
    expect(teapot).toBeInstanceOf(ApiError);
    expect(teapot).toMatchObject({ code: 'E_API_REQUEST', status: 418, serviceCode: undefined });
    const refused = await client.price('image.generate', IMAGE).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ status: 422, serviceCode: undefined, errors: { model: ['Nope.'] } });
  });
});
