import { describe, expect, test } from 'vitest';
import { UnexpectedResponseError } from '../../src/client/errors/unexpected-response-error.js';
import { ValidationError } from '../../src/client/errors/validation-error.js';
import { sendJson, useClientAt, useLocalServer } from './support.js';

// Shapes the emulator never produces (it follows the spec) but the public docs show: served
// by a small local HTTP server, read through the real client over loopback.

type Routes = Record<string, (query: URLSearchParams) => [number, unknown]>;

async function serve(routes: Routes) {
  const server = await useLocalServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = routes[`${req.method} ${url.pathname}`];
    req.resume();
    req.on('end', () => {
      if (!route) return sendJson(res, 404, { message: 'no route' });
      const [status, body] = route(url.searchParams);
      sendJson(res, status, body);
    });
  });
  return { server, client: useClientAt(server.url, { governor: false }) };
}

const flux = {
  name: 'FLUX.1 Schnell',
  slug: 'Flux1schnell',
  inference_types: ['txt2img'],
  info: { limits: { min_steps: 1, max_steps: 10 }, features: { supports_steps: true }, defaults: { steps: 4 } },
};

describe('tolerant reading', () => {
  test('balance at the top level (spec) or under data (OpenAPI), numbers or numeric strings', async () => {
    let body: unknown = { balance: 12.5 };
    const { client } = await serve({ 'GET /api/v2/account/balance': () => [200, body] });
    expect(await client.balance()).toEqual({ balance: 12.5 });
    body = { data: { balance: '7.25' } };
    expect(await client.balance()).toEqual({ balance: 7.25 });
    body = { data: {} };
    await expect(client.balance()).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  test('models: spec envelope data.data[] with meta under data, paged by meta.last_page', async () => {
    const { client, server } = await serve({
      'GET /api/v2/models': (q) => {
        const page = Number(q.get('page'));
        const item = page === 1 ? flux : { ...flux, slug: 'Second', name: 'Second' };
        return [200, { data: { data: [item], meta: { current_page: page, last_page: 2 } } }];
      },
    });
    const models = await client.listModels();
    expect(models.map((m) => m.slug)).toEqual(['Flux1schnell', 'Second']);
    expect(server.seen.map((r) => r.url)).toEqual(['/api/v2/models?limit=50&page=1', '/api/v2/models?limit=50&page=2']);
  });

  test('models: docs envelope data[] with meta at the top level', async () => {
    const { client } = await serve({
      'GET /api/v2/models': (q) => [200, { data: [{ ...flux, slug: `M${q.get('page')}` }], links: {}, meta: { current_page: Number(q.get('page')), last_page: 3 } }],
    });
    expect((await client.listModels()).map((m) => m.slug)).toEqual(['M1', 'M2', 'M3']);
  });

  test('models: inference_types as an object keyed by type, or a PHP list serialised as an object', async () => {
    const { client } = await serve({
      'GET /api/v2/models': () => [
        200,
        {
          data: [
            { ...flux, slug: 'Keyed', inference_types: { txt2img: { label: 'Text To Image' }, img2img: true } },
            { ...flux, slug: 'Listish', inference_types: { 0: 'txt2img', 2: 'img2img' } },
          ],
          meta: { last_page: 1 },
        },
      ],
    });
    const models = await client.listModels();
    expect(models.map((m) => m.inference_types)).toEqual([
      ['txt2img', 'img2img'],
      ['txt2img', 'img2img'],
    ]);
  });

  test('models: info as an empty PHP array, numeric strings in limits and defaults, "0"/"1" features', async () => {
    const { client } = await serve({
      'GET /api/v2/models': () => [
        200,
        {
          data: [
            { ...flux, slug: 'Bare', info: [] },
            { ...flux, slug: 'Stringy', info: { limits: { max_steps: '10', available_presets: ['fast'] }, defaults: { steps: '4', lang: 'en-us' }, features: { supports_steps: '1', supports_guidance: '0' } } },
          ],
        },
      ],
    });
    const [bare, stringy] = await client.listModels();
    expect(bare!.info).toEqual({ limits: {}, features: {}, defaults: {} });
    expect(stringy!.info).toEqual({
      limits: { max_steps: 10, available_presets: ['fast'] },
      defaults: { steps: 4, lang: 'en-us' },
      features: { supports_steps: true, supports_guidance: false },
    });
  });

  test('models: --task keeps the models serving that task', async () => {
    const { client } = await serve({
      'GET /api/v2/models': () => [200, { data: [flux, { ...flux, slug: 'Whisper', inference_types: ['audio_file2text'] }] }],
    });
    expect((await client.listModels({ task: 'audio.transcribe' })).map((m) => m.slug)).toEqual(['Whisper']);
  });

  test('422 errors as a v1 array of { field, messages } become field → messages', async () => {
    const { client } = await serve({
      'POST /api/v1/client/prompt/speech': () => [
        422,
        { message: 'The prompt field is required. (and 1 more error)', errors: [{ field: 'prompt', messages: ['The prompt field is required.'] }, { field: 'lang_code', messages: ['The lang code field is required.'] }] },
      ],
    });
    const error = await client.submit('prompt.enhance', {}, { version: 'v1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual({ prompt: ['The prompt field is required.'], lang_code: ['The lang code field is required.'] });
  });

  test('job status: progress as a string, v1 path, error fields', async () => {
    const { client } = await serve({
      'GET /api/v1/client/request-status/abc': () => [200, { data: { status: 'processing', progress: '45.50', result_url: null } }],
      'GET /api/v2/jobs/def': () => [
        200,
        { data: { status: 'error', progress: 0, error_code: 'WORKER_TIMEOUT', error_message: 'timeout', error_reason: 'TIMEOUT', retryable: true, refunded: '1' } },
      ],
    });
    expect(await client.jobStatus('abc', { version: 'v1' })).toMatchObject({ status: 'processing', progress: 45.5, resultUrl: null, error: null });
    expect((await client.jobStatus('def')).error).toEqual({ code: 'WORKER_TIMEOUT', message: 'timeout', reason: 'TIMEOUT', retryable: true, refunded: true });
  });

  test('price under data or at the top level; submission without request_id is refused', async () => {
    let price: unknown = { data: { price: '0.0125' } };
    const { client } = await serve({
      'POST /api/v2/images/generations/price': () => [200, price],
      'POST /api/v2/images/generations': () => [200, { data: {} }],
    });
    expect(await client.price('image.generate', { prompt: 'x' })).toBe(0.0125);
    price = { price: 2 };
    expect(await client.price('image.generate', { prompt: 'x' })).toBe(2);
    await expect(client.submit('image.generate', { prompt: 'x' })).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  test('a synchronous task answers with its result instead of a request id', async () => {
    const { client } = await serve({ 'POST /api/v1/client/prompt/speech': () => [200, { prompt: 'Hello, world.' }] });
    expect(await client.submit('prompt.enhance', { prompt: 'hello world', lang_code: 'en' }, { version: 'v1' })).toEqual({
      kind: 'sync',
      result: { prompt: 'Hello, world.' },
    });
  });
});
