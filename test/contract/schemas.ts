/** The JSON Schemas of schemas/ compiled with ajv (as a consumer would), and a check that names every problem. */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type SchemaName = 'events' | 'report' | 'quote' | 'validate' | 'status';

const compiled = new Map<SchemaName, ValidateFunction>();

/** The compiled schema `schemas/<name>.schema.json` (strict mode: a schema typo fails here). */
export function schema(name: SchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (validate === undefined) {
    const ajv = addFormats(new Ajv({ allErrors: true, strict: true }));
    validate = ajv.compile(JSON.parse(readFileSync(`${root}schemas/${name}.schema.json`, 'utf8')) as object);
    compiled.set(name, validate);
  }
  return validate;
}

/** Fails with ajv's errors (and where) when `value` does not match `schemas/<name>.schema.json`. */
export function expectValid(name: SchemaName, value: unknown, where = ''): void {
  const validate = schema(name);
  const ok = validate(value);
  const errors = ok ? [] : (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  expect(errors, `${name} schema${where ? ` (${where})` : ''}`).toEqual([]);
}
