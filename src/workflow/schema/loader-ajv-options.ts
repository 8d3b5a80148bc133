/**
 * Ajv settings of the loader. `strict` mode and code optimisation each cost hundreds of
 * milliseconds on this schema (~300 field schemas) when it is compiled at start (tests, or a
 * build without precompiled validators), so they are off here; a test compiles the same
 * schema in strict mode, which is where schema mistakes show up.
 */
export const LOADER_AJV_OPTIONS = { allErrors: true, verbose: true, strict: false, allowUnionTypes: true, code: { optimize: false } } as const;
