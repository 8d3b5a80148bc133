/**
 * The name of a rate-limit bucket (in this process or shared through Redis): the pool's (`audio/speech`), or the pool's and a model's
 * (`audio/speech#model:kokoro`) once an answer said the model has its own limits.
 */
const MODEL_SEPARATOR = '#model:';

export function bucketKey(pool: string, model: string | undefined): string {
  return model ? `${pool}${MODEL_SEPARATOR}${model}` : pool;
}

/** The pool and model a bucket key names (as the governor's events carry them). */
export function splitBucketKey(key: string): { pool: string; model?: string } {
  const at = key.indexOf(MODEL_SEPARATOR);
  return at < 0 ? { pool: key } : { pool: key.slice(0, at), model: key.slice(at + MODEL_SEPARATOR.length) };
}
