/**
 * The models the public docs name (docs/deapi-contract.md#models), with the `info` the emulator serves
 * and an offline validator falls back on. Only Flux1schnell has a published `info` item; the
 * other limits are taken from the "key facts" column of that table, and where the docs give
 * nothing, from the nearest documented sibling (marked "INF" below).
 */

/** A model as the model list returns it. */
export interface ModelInfo {
  readonly name: string;
  readonly slug: string;
  readonly inference_types: readonly string[];
  readonly info: {
    readonly limits: Readonly<Record<string, number | string | readonly (string | number)[]>>;
    readonly features: Readonly<Record<string, boolean>>;
    readonly defaults: Readonly<Record<string, number | string>>;
  };
  readonly tags?: readonly string[];
  readonly status?: 'standard_model' | 'test_model';
  readonly languages?: readonly { name: string; slug: string; voices: readonly { name: string; slug: string; gender: string }[] }[];
}

const kokoroVoices = [
  ['af_bella', 'Bella', 'female'],
  ['af_sky', 'Sky', 'female'],
  ['af_heart', 'Heart', 'female'],
  ['am_adam', 'Adam', 'male'],
  ['am_michael', 'Michael', 'male'],
  ['bf_emma', 'Emma', 'female'],
  ['bm_george', 'George', 'male'],
] as const;
const voices = kokoroVoices.map(([slug, name, gender]) => ({ slug, name, gender }));

const WHISPER_TYPES = ['audio2text', 'video2text', 'audio_file2text', 'video_file2text'] as const;

export const MODEL_CATALOGUE: readonly ModelInfo[] = [
  {
    name: 'FLUX.1 Schnell 12B NF4',
    slug: 'Flux1schnell',
    inference_types: ['txt2img'],
    info: {
      limits: { min_width: 256, max_width: 2048, min_height: 256, max_height: 2048, min_steps: 1, max_steps: 10, resolution_step: 128 },
      features: { supports_steps: true, supports_guidance: false, supports_negative_prompt: true, supports_custom_output_size: true },
      defaults: { steps: 4, width: 1024, height: 1024, guidance: 0 },
    },
    status: 'standard_model',
  },
  {
    name: 'Z-Image Turbo INT8',
    slug: 'ZImageTurbo_INT8',
    inference_types: ['txt2img'],
    info: {
      limits: { min_width: 256, max_width: 2048, min_height: 256, max_height: 2048, min_steps: 1, max_steps: 50, resolution_step: 16 },
      features: { supports_steps: true, supports_guidance: true, supports_negative_prompt: true, supports_custom_output_size: true },
      defaults: { steps: 8, width: 1024, height: 1024, guidance: 1 },
    },
    status: 'standard_model',
  },
  {
    name: 'FLUX.2 Klein 4B BF16',
    slug: 'Flux_2_Klein_4B_BF16',
    inference_types: ['txt2img', 'img2img'],
    info: {
      limits: { min_width: 256, max_width: 1536, min_height: 256, max_height: 1536, min_steps: 4, max_steps: 4, resolution_step: 16, max_input_images: 3 },
      features: { supports_steps: false, supports_guidance: false, supports_negative_prompt: false, supports_custom_output_size: true },
      defaults: { steps: 4, width: 1024, height: 1024, guidance: 0 },
    },
    status: 'standard_model',
    tags: ['new'],
  },
  {
    name: 'Qwen Image Edit Plus NF4',
    slug: 'QwenImageEdit_Plus_NF4',
    inference_types: ['img2img'],
    info: {
      limits: { min_steps: 1, max_steps: 50, min_guidance: 1, max_guidance: 20, max_input_images: 1 },
      features: { supports_steps: true, supports_guidance: true, supports_negative_prompt: true, supports_custom_output_size: false },
      defaults: { steps: 40, guidance: 4 },
    },
    status: 'standard_model',
  },
  {
    name: 'Nanonets OCR S F16',
    slug: 'Nanonets_Ocr_S_F16',
    inference_types: ['img2txt'],
    info: { limits: {}, features: {}, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'BEN2 background removal',
    slug: 'Ben2',
    inference_types: ['img-rmbg'],
    info: { limits: {}, features: {}, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'Real-ESRGAN x4',
    slug: 'RealESRGAN_x4',
    inference_types: ['img-upscale'],
    info: { limits: { min_scale: 4, max_scale: 4 }, features: {}, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'Real-ESRGAN x2',
    slug: 'RealESRGAN_x2',
    inference_types: ['img-upscale'],
    info: { limits: { min_scale: 2, max_scale: 2 }, features: {}, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'LTX-Video 13B 0.9.8 Distilled FP8',
    slug: 'Ltxv_13B_0_9_8_Distilled_FP8',
    inference_types: ['txt2video', 'img2video'],
    info: {
      limits: {
        min_width: 256, max_width: 1280, min_height: 256, max_height: 1280, resolution_step: 32,
        min_frames: 30, max_frames: 120, min_fps: 30, max_fps: 30, min_steps: 1, max_steps: 20,
      },
      features: { supports_steps: true, supports_guidance: true, supports_negative_prompt: true, supports_last_frame: true },
      defaults: { width: 768, height: 512, frames: 60, fps: 30, steps: 8, guidance: 1 },
    },
    status: 'standard_model',
  },
  {
    name: 'LTX-2.3 22B Distilled INT8',
    slug: 'Ltx2_3_22B_Dist_INT8',
    inference_types: ['txt2video', 'img2video', 'audio2video'],
    info: {
      limits: {
        min_width: 256, max_width: 1280, min_height: 256, max_height: 1280, resolution_step: 32,
        min_frames: 49, max_frames: 241, min_fps: 24, max_fps: 24, min_steps: 1, max_steps: 20,
      },
      features: { supports_steps: true, supports_guidance: true, supports_negative_prompt: true, supports_last_frame: true },
      defaults: { width: 768, height: 512, frames: 97, fps: 24, steps: 8, guidance: 1 },
    },
    status: 'standard_model',
    tags: ['new'],
  },
  {
    name: 'LTX-2 19B Distilled FP8',
    slug: 'Ltx2_19B_Dist_FP8',
    inference_types: ['txt2video', 'img2video'],
    info: {
      // INF: limits as the LTX-2.3 sibling.
      limits: {
        min_width: 256, max_width: 1280, min_height: 256, max_height: 1280, resolution_step: 32,
        min_frames: 49, max_frames: 241, min_fps: 24, max_fps: 24, min_steps: 1, max_steps: 20,
      },
      features: { supports_steps: true, supports_guidance: true, supports_negative_prompt: true },
      defaults: { width: 768, height: 512, frames: 97, fps: 24, steps: 8, guidance: 1 },
    },
    status: 'standard_model',
  },
  {
    name: 'MiniMax H3 33B Turbo INT8',
    slug: 'MiniMaxH3_33B_Turbo_INT8',
    inference_types: ['txt2video', 'img2video'],
    info: {
      // INF: no limits published.
      limits: { min_width: 256, max_width: 1280, min_height: 256, max_height: 1280, min_frames: 24, max_frames: 150, min_fps: 24, max_fps: 30, min_steps: 1, max_steps: 30 },
      features: { supports_steps: true, supports_guidance: true, supports_negative_prompt: true },
      defaults: { width: 768, height: 512, frames: 96, fps: 24, steps: 12, guidance: 1 },
    },
    status: 'standard_model',
  },
  {
    name: 'Wan 2.2 Animate 14B INT8',
    slug: 'Wan2_2_Animate_14B_INT8',
    inference_types: ['video-replace'],
    info: {
      limits: { min_width: 256, max_width: 1280, min_height: 256, max_height: 1280, min_steps: 1, max_steps: 20 },
      features: { supports_steps: true },
      defaults: { steps: 4 },
    },
    status: 'standard_model',
  },
  {
    name: 'Real-ESRGAN Video x2',
    slug: 'RealESRGAN_Vid_x2',
    inference_types: ['vid-upscale'],
    info: { limits: {}, features: { supports_scale: false }, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'Real-ESRGAN Video x4',
    slug: 'RealESRGAN_Vid_x4',
    inference_types: ['vid-upscale'],
    info: { limits: {}, features: { supports_scale: false }, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'FlashVSR Tiny',
    slug: 'FlashVSR_Tiny',
    inference_types: ['vid-upscale'],
    info: { limits: { min_scale: 2, max_scale: 4 }, features: { supports_scale: true }, defaults: { scale: 2 } },
    status: 'standard_model',
  },
  {
    name: 'RMBG 1.4',
    slug: 'RMBG-1.4',
    inference_types: ['vid-rmbg'],
    info: { limits: {}, features: {}, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'Kokoro 82M',
    slug: 'Kokoro',
    inference_types: ['txt2audio'],
    info: {
      limits: { min_text: 3, max_text: 10_001, min_speed: 0.5, max_speed: 2 },
      features: { supports_voice_presets: true, supports_custom_voice: false },
      defaults: { lang: 'en-us', voice: 'af_sky', speed: 1, format: 'mp3', sample_rate: 24_000 },
    },
    status: 'standard_model',
    languages: [
      { name: 'English (US)', slug: 'en-us', voices },
      { name: 'English (UK)', slug: 'en-gb', voices },
      { name: 'Spanish', slug: 'es', voices },
      { name: 'French', slug: 'fr-fr', voices },
      { name: 'Hindi', slug: 'hi', voices },
      { name: 'Italian', slug: 'it', voices },
      { name: 'Portuguese (BR)', slug: 'pt-br', voices },
    ],
  },
  {
    name: 'Chatterbox',
    slug: 'Chatterbox',
    inference_types: ['txt2audio'],
    info: {
      limits: { min_text: 10, max_text: 2000, min_speed: 1, max_speed: 1 },
      features: { supports_voice_presets: false, supports_custom_voice: true },
      defaults: { lang: 'en', voice: 'default', speed: 1, format: 'mp3', sample_rate: 24_000 },
    },
    status: 'standard_model',
  },
  {
    name: 'Qwen3 TTS 1.7B CustomVoice',
    slug: 'Qwen3_TTS_12Hz_1_7B_CustomVoice',
    inference_types: ['txt2audio'],
    info: {
      limits: { min_text: 10, max_text: 5000, min_speed: 1, max_speed: 1 },
      features: { supports_voice_presets: true, supports_custom_voice: false },
      defaults: { lang: 'English', voice: 'Vivian', speed: 1, format: 'mp3', sample_rate: 24_000 },
    },
    status: 'standard_model',
  },
  {
    // Voice cloning (mode voice_clone with ref_audio); limits as its CustomVoice sibling (docs/deapi-contract.md#models).
    name: 'Qwen3 TTS 1.7B Base',
    slug: 'Qwen3_TTS_12Hz_1_7B_Base',
    inference_types: ['txt2audio'],
    info: {
      limits: { min_text: 10, max_text: 5000, min_speed: 1, max_speed: 1 },
      features: { supports_voice_presets: false, supports_custom_voice: true },
      defaults: { lang: 'English', voice: 'default', speed: 1, format: 'mp3', sample_rate: 24_000 },
    },
    status: 'standard_model',
  },
  {
    // Voice design (mode voice_design with instruct); limits as its CustomVoice sibling (docs/deapi-contract.md#models).
    name: 'Qwen3 TTS 1.7B VoiceDesign',
    slug: 'Qwen3_TTS_12Hz_1_7B_VoiceDesign',
    inference_types: ['txt2audio'],
    info: {
      limits: { min_text: 10, max_text: 5000, min_speed: 1, max_speed: 1 },
      features: { supports_voice_presets: false, supports_custom_voice: false },
      defaults: { lang: 'English', voice: 'default', speed: 1, format: 'mp3', sample_rate: 24_000 },
    },
    status: 'standard_model',
  },
  {
    name: 'ACE-Step 1.5 Turbo',
    slug: 'AceStep_1_5_Turbo',
    inference_types: ['txt2music'],
    info: {
      limits: { min_duration: 10, max_duration: 300, min_steps: 8, max_steps: 8, min_guidance: 1, max_guidance: 1, min_bpm: 50, max_bpm: 200, output_formats: ['mp3', 'wav', 'flac'] },
      features: { supports_steps: false, supports_guidance: false },
      defaults: { duration: 30, steps: 8, guidance: 1, format: 'mp3' },
    },
    status: 'standard_model',
  },
  {
    name: 'ACE-Step 1.5 XL Turbo INT8',
    slug: 'AceStep_1_5_XL_Turbo_INT8',
    inference_types: ['txt2music'],
    info: {
      limits: { min_duration: 10, max_duration: 300, min_steps: 8, max_steps: 8, min_guidance: 1, max_guidance: 1, min_bpm: 50, max_bpm: 200, output_formats: ['mp3', 'wav', 'flac'] },
      features: { supports_steps: false, supports_guidance: false },
      defaults: { duration: 30, steps: 8, guidance: 1, format: 'mp3' },
    },
    status: 'standard_model',
    tags: ['new'],
  },
  {
    name: 'ACE-Step 1.5 Base',
    slug: 'AceStep_1_5_Base',
    inference_types: ['txt2music'],
    info: {
      limits: { min_duration: 30, max_duration: 300, min_steps: 5, max_steps: 100, min_guidance: 3, max_guidance: 20, min_bpm: 50, max_bpm: 200, output_formats: ['mp3', 'wav', 'flac'] },
      features: { supports_steps: true, supports_guidance: true },
      defaults: { duration: 60, steps: 30, guidance: 7, format: 'mp3' },
    },
    status: 'standard_model',
  },
  {
    name: 'Whisper Large v3',
    slug: 'WhisperLargeV3',
    inference_types: [...WHISPER_TYPES],
    info: {
      limits: { timestamp_levels: ['segment'] },
      features: { supports_timestamps: true, supports_diarization: false },
      defaults: {},
    },
    status: 'standard_model',
  },
  {
    name: 'Whisper Large v3 CTranslate2',
    slug: 'WhisperLargeV3Ct2',
    inference_types: [...WHISPER_TYPES],
    info: {
      limits: { timestamp_levels: ['segment', 'word'] },
      features: { supports_timestamps: true, supports_diarization: true },
      defaults: {},
    },
    status: 'standard_model',
  },
  {
    name: 'BGE M3 FP16',
    slug: 'Bge_M3_FP16',
    inference_types: ['txt2embedding'],
    info: { limits: { max_input_tokens: 8192, max_total_tokens: 300_000, dimensions: 1024 }, features: {}, defaults: {} },
    status: 'standard_model',
  },
  {
    name: 'Marlin 2B',
    slug: 'Marlin_2B',
    inference_types: ['video2desc', 'video_file2desc'],
    info: {
      limits: { max_video_duration_seconds: 7200, available_presets: ['fast', 'balanced', 'detail'] },
      features: { supports_presets: true },
      defaults: { preset: 'balanced' },
    },
    status: 'standard_model',
    tags: ['new'],
  },
];

const BY_SLUG = new Map(MODEL_CATALOGUE.map((m) => [m.slug, m]));

/** A built-in model by slug. */
export function findCatalogueModel(slug: string): ModelInfo | undefined {
  return BY_SLUG.get(slug);
}
