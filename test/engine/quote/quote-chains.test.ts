/**
 * Chained steps are priced from what the workflow fixes upstream: workflows as users write
 * them, quoted over loopback against the emulator. Expected prices are the published rates
 * (README price table) worked out by hand.
 */
import { describe, expect, it } from 'vitest';
import { makeMp3, makeMp4 } from '../../../src/emulator/media/index.js';
import { quoteRun } from '../../../src/engine/quote/quote.js';
import { quoteInputFromGraph } from '../../../src/engine/quote/quote-input-from-graph.js';
import type { Quote, QuotedItem } from '../../../src/engine/quote/quote-types.js';
import { useEmulator } from '../../helpers/emulator-http.js';
import { graphOf, useWorkspace, yaml } from '../run-helpers.js';
import { clientFor } from './quote-fixtures.js';

async function quoteOf(files: Record<string, string | Buffer>): Promise<{ quote: Quote; requests: number }> {
  const dir = await useWorkspace(files);
  const emulator = await useEmulator();
  const { prices } = clientFor(emulator);
  const quote = await quoteRun(quoteInputFromGraph(await graphOf(dir)), { prices, clock: emulator.clock });
  return { quote, requests: emulator.stats().quotes };
}

const items = (quote: Quote, step: string): readonly QuotedItem[] => quote.steps.find((s) => s.id === step)!.quoted_items;

describe('chained steps', () => {
  it('prices an upscale of generated images from the width and height the workflow gives them', async () => {
    const { quote } = await quoteOf({
      'workflow.yaml': yaml(
        'version: 1',
        'steps:',
        '  generate:',
        '    task: image.generate',
        '    for_each: { items: [fox, owl, hare] }',
        '    with: { prompt: "a ${{ item.value }}", model: Flux1schnell, width: 512, height: 512, steps: 4, seed: 1 }',
        '  upscale:',
        '    task: image.upscale',
        '    for_each: generate',
        '    with: { image: "${{ steps.generate.result_url }}", model: RealESRGAN_x4 }',
      ),
    });
    // 0.0005 + 6e-9 × 512² × 4²
    expect(items(quote, 'upscale').map((i) => [i.method, i.price])).toEqual([
      ['derived', 0.025666],
      ['derived', 0.025666],
      ['derived', 0.025666],
    ]);
    expect(items(quote, 'upscale')[0]).toMatchObject({ derived_from: { source: 'workflow', step: 'generate' }, basis: 'price twin with a blank 512×512 image in place of `image` (the size step generate produces)' });
    expect(quote.total).toMatchObject({ exact: 0.081078, point: 0.081078, high: 0.081078, unknown_items: 0 });
  });

  it('carries sizes through a chain: a background removal of a generated image, then OCR of the cut-out', async () => {
    const { quote } = await quoteOf({
      'workflow.yaml': yaml(
        'version: 1',
        'steps:',
        '  generate:',
        '    task: image.generate',
        '    with: { prompt: "a shop sign", model: Flux1schnell, width: 768, height: 512, steps: 4, seed: 1 }',
        '  cutout:',
        '    task: image.remove-background',
        '    with: { image: "${{ steps.generate.result_url }}", model: Ben2 }',
        '  read:',
        '    task: image.ocr',
        '    with: { image: "${{ steps.cutout.result_url }}", model: Nanonets_Ocr_S_F16 }',
      ),
    });
    // 0.0003 + 4e-9 × 768 × 512, and 0.00045 + 8.4e-9 × 768 × 512
    expect(items(quote, 'cutout')[0]).toMatchObject({ method: 'derived', price: 0.001873 });
    expect(items(quote, 'read')[0]).toMatchObject({ method: 'derived', price: 0.003753, derived_from: { source: 'workflow', step: 'cutout' } });
  });

  it('prices a video upscale from the frames and fps of the generated video, and a background removal of that', async () => {
    const { quote } = await quoteOf({
      'workflow.yaml': yaml(
        'version: 1',
        'steps:',
        '  clip:',
        '    task: video.generate',
        '    with: { prompt: waves, model: Ltxv_13B_0_9_8_Distilled_FP8, width: 512, height: 512, frames: 90, fps: 30, seed: 1 }',
        '  sharpen:',
        '    task: video.upscale',
        '    with: { video: "${{ steps.clip.result_url }}", model: RealESRGAN_Vid_x4 }',
        '  cutout:',
        '    task: video.remove-background',
        '    with: { video: "${{ steps.sharpen.result_url }}", model: RMBG-1.4 }',
      ),
    });
    // 0.002 × (90 / 30 s) × 4, then 0.0015 × 3 s of the upscaled video
    expect(items(quote, 'sharpen')[0]).toMatchObject({ method: 'derived', price: 0.024, x: 3, basis: 'price twin at duration=3 (what step clip is set to produce)' });
    expect(items(quote, 'cutout')[0]).toMatchObject({ method: 'derived', price: 0.0045, x: 3 });
  });

  it('prices speech of a timestamped transcript by the JSON it receives, and of a plain one by its text', async () => {
    const { quote } = await quoteOf({
      'clips/a.mp3': makeMp3(60),
      'workflow.yaml': yaml(
        'version: 1',
        'steps:',
        '  transcribe:',
        '    task: audio.transcribe',
        '    for_each: { glob: "clips/*.mp3" }',
        '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: true }',
        '  json:',
        '    task: audio.speech',
        '    for_each: transcribe',
        '    with: { text: "${{ steps.transcribe.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
        '  words:',
        '    task: audio.transcribe',
        '    for_each: { glob: "clips/*.mp3" }',
        '    with: { source_file: "${{ item.path }}", model: WhisperLargeV3, include_ts: false }',
        '  plain:',
        '    task: audio.speech',
        '    for_each: words',
        '    with: { text: "${{ steps.words.text }}", model: Kokoro, voice: af_sky, lang: en-us }',
      ),
    });
    // 60 s × 2.5 words × 6 characters = 900 characters of text; the JSON holds it twice plus 8 characters of times per second.
    const json = items(quote, 'json')[0]!;
    expect(json).toMatchObject({ method: 'estimated', x: 2280, price: 0.001756 });
    // The range: 60 × (2 × 1 × 5 + 3) = 780 to 60 × (2 × 3.5 × 7 + 35) = 5040 characters, at 0.77e-6 each.
    expect([json.low, json.high]).toEqual([0.000601, 0.003881]);
    expect(json.assumption).toContain('timestamped JSON (include_ts) ≈ the text twice (whole and in segments) plus 8 characters of times and keys per second (range 3–35)');
    expect(items(quote, 'plain')[0]).toMatchObject({ method: 'estimated', x: 900, price: 0.000693 });
  });

  it('prices embeddings of gathered video descriptions from the videos\' lengths', async () => {
    const { quote } = await quoteOf({
      'videos/a.mp4': makeMp4({ seconds: 100, width: 320, height: 240, fps: 24, audio: false }),
      'videos/b.mp4': makeMp4({ seconds: 50, width: 320, height: 240, fps: 24, audio: false }),
      'workflow.yaml': yaml(
        'version: 1',
        'steps:',
        '  describe:',
        '    task: video.describe',
        '    for_each: { glob: "videos/*.mp4" }',
        '    with: { video_file: "${{ item.path }}", model: Marlin_2B, preset: balanced }',
        '  embed:',
        '    task: text.embed',
        '    with: { input: "${{ steps.describe.text }}", model: Bge_M3_FP16 }',
      ),
    });
    // (100 + 50) s of video × 120 characters per 10 s event = 1800 characters, in two texts: 2 × 225 tokens × 0.084e-6.
    expect(items(quote, 'embed')[0]).toMatchObject({ method: 'estimated', x: 1800, price: 0.000038 });
    expect(quote.total.unknown_items).toBe(0);
  });

  it('quotes a step exactly when the field it waits for is one its twin does not take', async () => {
    const { quote } = await quoteOf({
      'workflow.yaml': yaml(
        'version: 1',
        'steps:',
        '  voice:',
        '    task: audio.speech',
        '    with: { text: "Hello there.", model: Kokoro, voice: af_sky, lang: en-us }',
        '  clip:',
        '    task: video.audio-sync',
        '    with: { prompt: talking, audio: "${{ steps.voice.result_url }}", model: Ltx2_3_22B_Dist_INT8, width: 512, height: 512, frames: 97, fps: 24, seed: 1 }',
      ),
    });
    // 0.001737 × (97 / 24 / 2) × (512² / 256²) × 1.5
    expect(items(quote, 'clip')[0]).toMatchObject({ method: 'exact', price: 0.021061, basis: 'price twin, the twin does not take `audio`' });
  });
});
