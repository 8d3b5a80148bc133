// Part of `npm run build`: writes the workflow schema's precompiled validators beside the
// compiled check-schema.js (src/workflow/schema/standalone-validators.ts says why).
// `node scripts/write-validators.mjs [DIST]`: DIST is the build's output folder (default dist/).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? new URL('../dist', import.meta.url).pathname);
const schemaDir = resolve(dist, 'workflow', 'schema');
const { STANDALONE_VALIDATORS_DIR, standaloneValidatorSources } = await import(pathToFileURL(resolve(schemaDir, 'standalone-validators.js')).href);
const dir = resolve(schemaDir, STANDALONE_VALIDATORS_DIR);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
for (const [name, source] of standaloneValidatorSources()) writeFileSync(resolve(dir, name), source);
