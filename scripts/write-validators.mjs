// Part of `npm run build`: writes the workflow schema's precompiled validators beside the
// compiled check-schema.js (src/workflow/schema/standalone-validators.ts says why).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

const { STANDALONE_VALIDATORS_DIR, standaloneValidatorSources } = await import('../dist/workflow/schema/standalone-validators.js');
const dir = new URL(`../dist/workflow/schema/${STANDALONE_VALIDATORS_DIR}/`, import.meta.url);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
for (const [name, source] of standaloneValidatorSources()) writeFileSync(new URL(name, dir), source);
