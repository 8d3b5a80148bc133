import { describe, expect, it } from 'vitest';
import { enhancePrompt } from '../../src/emulator/jobs/prompt-enhancer.js';
import { validateRequest } from '../../src/emulator/requests/validate-request.js';
import { jsonBody, models, post } from './validation-helpers.js';

async function enhance(path: string, values: Record<string, unknown>) {
  const result = await validateRequest(post(path), jsonBody(values), models, { allowHttpWebhooks: false });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return enhancePrompt(result.request);
}

describe('prompt enhancement', () => {
  it('appends a descriptive tail for the target, the same every time', async () => {
    const values = { prompt: '  a red   fox ', type: 'images.generations', model_slug: 'Flux1schnell' };
    const first = await enhance('/api/v2/prompts/enhancements', values);
    expect(first).toEqual({ prompt: 'a red fox, highly detailed, sharp focus, balanced composition, natural lighting', negative_prompt: null });
    expect(await enhance('/api/v2/prompts/enhancements', values)).toEqual(first);
  });

  it('improves a negative prompt when one is given', async () => {
    const out = await enhance('/api/v2/prompts/enhancements', { prompt: 'a fox', negative_prompt: 'text', type: 'videos.generations', model_slug: 'Ltx2_19B_Dist_FP8' });
    expect(out.negative_prompt).toBe('text, blurry, low quality, distorted, artifacts');
  });

  it('tidies text for speech on the v1 booster', async () => {
    expect(await enhance('/api/v1/client/prompt/speech', { prompt: 'hello   there', lang_code: 'en' })).toEqual({ prompt: 'Hello there.', negative_prompt: null });
  });
});
