/**
 * Prices in integer micro-dollars: `Math.round(raw × 1e6)` of the USD formulas below, built
 * from the published rates (docs/deapi-contract.md#prices-and-the-account). A submission and its price twin with the same
 * parameters get the same number; a twin given `duration_seconds` / `duration` / `count_text`
 * prices exactly what a file of that length (or a text of that many characters) would cost.
 *
 * | task                    | price (USD)                                                                 |
 * |-------------------------|-----------------------------------------------------------------------------|
 * | image.generate          | base × (w·h / 512²) × (steps / 4); base Flux1schnell 0.00136,                |
 * |                         | ZImageTurbo_INT8 0.0034, Flux_2_Klein_4B_BF16 0.00186, others 0.002          |
 * | image.edit              | base × (w·h / 512²) × (steps / 20); base QwenImageEdit_Plus_NF4 0.0179,      |
 * |                         | others 0.0093; w, h default to the first image's size, else the model's      |
 * |                         | default size, else 512 (a twin may leave the image out)                      |
 * | image.ocr               | 0.00045 + 8.4e-9 × pixels (the image's, or a twin's width × height)          |
 * | image.remove-background | 0.0003 + 4e-9 × pixels                                                       |
 * | image.upscale           | 0.0005 + 6e-9 × pixels × scale² (scale = model max_scale, default 2)         |
 * | video.generate /        | 0.001737 × ((frames / fps) / 2) × (w·h / 256²) × factor; factor              |
 * | animate / audio-sync    | Ltxv_13B… 1.0, Ltx2_3_22B… 1.5, Ltx2_19B… 1.2, MiniMaxH3… 3.0, others 1      |
 * | video.replace           | 0.006 × video seconds (the twin takes `duration` instead of the file)        |
 * | video.upscale           | 0.002 × seconds × scale (request scale, else model default, else 4 for       |
 * |                         | *_x4 and 2 otherwise); the twin takes `duration`; neither file nor duration → 0 |
 * | video.remove-background | 0.0015 × seconds; the twin takes `duration`; neither file nor duration → 0  |
 * | video.describe          | seconds × (0.36 / 3600) × preset (fast 1, balanced 3, detail 7; default      |
 * |                         | balanced, or the cheapest offered) + 0.005 include_metadata on a URL source  |
 * | audio.speech            | characters × 0.77e-6 / speed (characters = code points of text, or count_text) |
 * | audio.music             | duration × inference_steps × rate; AceStep_1_5_Turbo 2e-5,                   |
 * |                         | AceStep_1_5_XL_Turbo_INT8 3e-5, AceStep_1_5_Base 1.2e-5, others 2e-5         |
 * | audio.transcribe        | seconds × hourly / 3600 (WhisperLargeV3 0.05, WhisperLargeV3Ct2 0.06,        |
 * | (v2 and every v1 twin)  | others 0.05); TikTok: band by minutes rounded up ≤1 0.015, ≤2 0.0225,       |
 * |                         | ≤3 0.030, ≤5 0.045, ≤10 0.0825, >10 0.105; then × 1.5 on Ct2 with            |
 * |                         | ts_level=word or diarize; + 0.005 include_metadata on a URL source          |
 * | text.embed              | Σ ceil(chars(input_i) / 4) tokens × 0.084e-6                                 |
 * | prompt.enhance          | 0.0002 flat                                                                  |
 *
 * A URL source's length is derived from the URL (url-media.ts). A twin with `duration_seconds`
 * counts as a URL source when it names a `platform`. An upload whose container gives no
 * duration is estimated from its size (request-source.ts).
 */
import { assertNever, toMicros } from '../../common/index.js';
import type { ModelInfo } from '../../service/index.js';
import { featureFlag, limitList, limitNumber, modelDefault } from '../requests/model-limits.js';
import { describeSource } from '../requests/request-source.js';
import type { ResolvedRequest, ValidFile } from '../types.js';

type Values = Readonly<Record<string, unknown>>;

const num = (values: Values, key: string, fallback = 0): number => {
  const v = values[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
};

const IMAGE_BASE: Readonly<Record<string, number>> = { Flux1schnell: 0.00136, ZImageTurbo_INT8: 0.0034, Flux_2_Klein_4B_BF16: 0.00186 };
const EDIT_BASE: Readonly<Record<string, number>> = { QwenImageEdit_Plus_NF4: 0.0179 };
const VIDEO_FACTOR: Readonly<Record<string, number>> = {
  Ltxv_13B_0_9_8_Distilled_FP8: 1.0,
  Ltx2_3_22B_Dist_INT8: 1.5,
  Ltx2_19B_Dist_FP8: 1.2,
  MiniMaxH3_33B_Turbo_INT8: 3.0,
};
const MUSIC_RATE: Readonly<Record<string, number>> = { AceStep_1_5_Turbo: 2e-5, AceStep_1_5_XL_Turbo_INT8: 3e-5, AceStep_1_5_Base: 1.2e-5 };
const TRANSCRIBE_HOURLY: Readonly<Record<string, number>> = { WhisperLargeV3: 0.05, WhisperLargeV3Ct2: 0.06 };
const TIKTOK_BANDS: readonly (readonly [number, number])[] = [[1, 0.015], [2, 0.0225], [3, 0.03], [5, 0.045], [10, 0.0825]];
const TIKTOK_OVER_10_MIN = 0.105;
const PRESET_MULTIPLIER: Readonly<Record<string, number>> = { fast: 1, balanced: 3, detail: 7 };
const METADATA_SURCHARGE = 0.005;
const FLAG_SURCHARGE = 1.5;

function firstImage(request: ResolvedRequest): ValidFile | undefined {
  const f = request.files;
  return f['image']?.[0] ?? f['images']?.[0] ?? f['first_frame_image']?.[0];
}

/** Pixels of the uploaded image, or of `width` × `height` on a twin quoted without the file. */
function imagePixels(request: ResolvedRequest): number {
  const media = firstImage(request)?.media;
  if (media) return (media.width ?? 0) * (media.height ?? 0);
  return num(request.values, 'width') * num(request.values, 'height');
}

/** An edit's output side: the request's, else the first image's, else the model default, else 512. */
function editSide(request: ResolvedRequest, side: 'width' | 'height'): number {
  const fromModel = Number(modelDefault(request.model, side));
  const fallback = Number.isFinite(fromModel) && fromModel > 0 ? fromModel : 512;
  return num(request.values, side, firstImage(request)?.media[side] ?? fallback);
}

/** The preset a description runs with (spec: default balanced, or the cheapest offered). */
export function resolvePreset(model: ModelInfo | null, requested: unknown): string {
  const offered = limitList(model, 'available_presets') ?? Object.keys(PRESET_MULTIPLIER);
  const supports = featureFlag(model, 'supports_presets') === true;
  if (supports && typeof requested === 'string' && offered.includes(requested)) return requested;
  if (offered.includes('balanced')) return 'balanced';
  return [...offered].sort((a, b) => (PRESET_MULTIPLIER[a] ?? 99) - (PRESET_MULTIPLIER[b] ?? 99))[0] ?? 'balanced';
}

function transcribePrice(request: ResolvedRequest, slug: string): number {
  const v = request.values;
  const source = describeSource('audio.transcribe', v, request.files);
  const base =
    source.platform === 'tiktok'
      ? (TIKTOK_BANDS.find(([minutes]) => Math.ceil(source.seconds / 60) <= minutes)?.[1] ?? TIKTOK_OVER_10_MIN)
      : source.seconds * ((TRANSCRIBE_HOURLY[slug] ?? 0.05) / 3600);
  const flagged = slug === 'WhisperLargeV3Ct2' && (v['ts_level'] === 'word' || v['diarize'] === true);
  return base * (flagged ? FLAG_SURCHARGE : 1) + metadataSurcharge(v, source.kind, source.platform);
}

function metadataSurcharge(values: Values, kind: string, platform: string | null): number {
  const fromUrl = kind === 'url' || (kind === 'duration' && platform !== null);
  return values['include_metadata'] === true && fromUrl ? METADATA_SURCHARGE : 0;
}

function videoUpscaleScale(request: ResolvedRequest, slug: string): number {
  const requested = request.values['scale'];
  if (typeof requested === 'number') return requested;
  const fromModel = Number(modelDefault(request.model, 'scale'));
  if (Number.isFinite(fromModel) && fromModel > 0) return fromModel;
  return /_x4$/i.test(slug) ? 4 : 2;
}

function textChars(values: Values): number {
  const text = values['text'];
  return typeof text === 'string' ? [...text].length : num(values, 'count_text');
}

function embeddingTokens(values: Values): number {
  const input = values['input'];
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map(String) : [];
  return texts.reduce((sum, t) => sum + Math.ceil([...t].length / 4), 0);
}

/** The task's price in USD, before rounding to micro-dollars. */
function rawPrice(request: ResolvedRequest): number {
  const v = request.values;
  const slug = request.model?.slug ?? '';
  const task = request.endpoint.task?.id;
  // Only price twins and submissions are priced, and every one of them belongs to a task.
  if (task === undefined) throw new Error(`${request.endpoint.path}: priced, but serves no task`);
  const sourceSeconds = (): number => describeSource(task, v, request.files).seconds;
  switch (task) {
    case 'image.generate':
      return (IMAGE_BASE[slug] ?? 0.002) * ((num(v, 'width') * num(v, 'height')) / 512 ** 2) * (num(v, 'steps') / 4);
    case 'image.edit':
      return (EDIT_BASE[slug] ?? 0.0093) * ((editSide(request, 'width') * editSide(request, 'height')) / 512 ** 2) * (num(v, 'steps') / 20);
    case 'image.ocr':
      return 0.00045 + 8.4e-9 * imagePixels(request);
    case 'image.remove-background':
      return 0.0003 + 4e-9 * imagePixels(request);
    case 'image.upscale': {
      const scale = limitNumber(request.model, 'max_scale') ?? 2;
      return 0.0005 + 6e-9 * imagePixels(request) * scale ** 2;
    }
    case 'video.generate':
    case 'video.animate':
    case 'video.audio-sync': {
      const seconds = num(v, 'frames') / Math.max(1, num(v, 'fps', 24));
      return 0.001737 * (seconds / 2) * ((num(v, 'width') * num(v, 'height')) / 256 ** 2) * (VIDEO_FACTOR[slug] ?? 1);
    }
    case 'video.replace':
      return 0.006 * sourceSeconds();
    case 'video.upscale':
      return 0.002 * sourceSeconds() * videoUpscaleScale(request, slug);
    case 'video.remove-background':
      return 0.0015 * sourceSeconds();
    case 'video.describe': {
      const source = describeSource(task, v, request.files);
      const preset = resolvePreset(request.model, v['preset']);
      return source.seconds * (0.36 / 3600) * (PRESET_MULTIPLIER[preset] ?? 3) + metadataSurcharge(v, source.kind, source.platform);
    }
    case 'audio.speech':
      return (textChars(v) * 0.77e-6) / Math.max(0.01, num(v, 'speed', 1));
    case 'audio.music':
      return num(v, 'duration') * num(v, 'inference_steps') * (MUSIC_RATE[slug] ?? 2e-5);
    case 'audio.transcribe':
      return transcribePrice(request, slug);
    case 'text.embed':
      return embeddingTokens(v) * 0.084e-6;
    case 'prompt.enhance':
      return 0.0002;
    default:
      return assertNever(task, 'task');
  }
}

/** The price of a request in integer micro-dollars (`price` = micros / 1e6). */
export function priceMicros(request: ResolvedRequest): number {
  const raw = rawPrice(request);
  return Number.isFinite(raw) && raw > 0 ? toMicros(raw) : 0;
}
