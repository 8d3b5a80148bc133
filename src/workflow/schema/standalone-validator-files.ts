/** Where the build puts the precompiled workflow validators (standalone-validators.ts), beside check-schema.js. */
export const STANDALONE_VALIDATORS_DIR = 'validators';

/** The file of a task's `with` rules in that folder. */
export function withValidatorFile(task: string): string {
  return `with.${task}.cjs`;
}
