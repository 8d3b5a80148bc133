// The text tasks of the catalogue, in the order of the v2 endpoint index.
import { WEBHOOK_FIELDS } from './file-rules.js';
import { V1, model, imageFile, returnResult, v1Same } from './task-field-builders.js';
import type { TaskSpec } from './types.js';

export const TEXT_TASKS = [
  {
    id: 'text.embed',
    title: 'Text To Embedding',
    path: '/api/v2/embeddings',
    pricePath: '/api/v2/embeddings/price',
    body: 'json',
    fields: [
      {
        name: 'input',
        type: 'text-or-texts',
        required: true,
        maxItems: 2048,
        description: 'A string or up to 2048 strings.',
        accepts: ['text', 'json'],
      },
      model(),
      returnResult,
      ...WEBHOOK_FIELDS,
    ],
    exactlyOneOf: [],
    priceFields: [],
    inferenceTypes: ['txt2embedding'],
    pool: 'embeddings',
    resultKind: 'vectors',
    modelField: 'model',
    v1: [v1Same('txt2embedding')],
    source: 'public docs, embeddings',
  },
  {
    id: 'prompt.enhance',
    title: 'Prompt Enhancement',
    path: '/api/v2/prompts/enhancements',
    pricePath: '/api/v2/prompts/enhancements/price',
    body: 'multipart',
    fields: [
      { name: 'prompt', type: 'string', required: true, minLength: 3, description: 'Prompt to improve.', accepts: ['text'] },
      {
        name: 'type',
        type: 'string',
        required: true,
        enum: ['images.generations', 'images.edits', 'videos.generations', 'videos.animations', 'audio.speech', 'audio.music'],
        description: 'Booster, in dot notation.',
      },
      { name: 'model_slug', type: 'string', required: true, description: 'Target model of the enhanced prompt.' },
      { name: 'negative_prompt', type: 'string', minLength: 3, description: 'Negative prompt to improve.', accepts: ['text'] },
      { ...imageFile('image', false, 'Image context (required for images.edits and videos.animations).') },
    ],
    exactlyOneOf: [],
    priceFields: [],
    priceOmits: ['image'],
    // A flat price: the prompt and the booster type do not change it.
    priceOptional: ['prompt', 'type'],
    inferenceTypes: [],
    pool: 'enhancement',
    resultKind: 'text',
    sync: true,
    modelField: 'model_slug',
    v1: [
      {
        path: `${V1}/prompt/speech`,
        pricePath: `${V1}/prompt/speech/price-calculation`,
        body: 'json',
        fields: [
          { name: 'prompt', type: 'string', required: true, minLength: 3, description: 'Text to optimise for speech.', accepts: ['text'] },
          // The spec does not mark it required, and deAPI's SDK leaves it out unless given.
          { name: 'lang_code', type: 'string', maxLength: 16, description: 'Language code (optional).' },
        ],
        exactlyOneOf: [],
        sync: 'prompt',
        errorsAsArray: true,
      },
    ],
    source: 'public docs, prompts/enhancements (docs list of `type`); v1 prompt/speech from the spec',
  },
] satisfies readonly TaskSpec[];
