#!/usr/bin/env node
// The package's bin (bundled into dist/bin/deflow.js by scripts/bundle-cli.mjs): starts the CLI
// bundle beside it with its code cache (see start-bundle.ts).
import { fileURLToPath } from 'node:url';
import { startBundle } from './start-bundle.js';

startBundle(fileURLToPath(new URL('./deflow.cjs', import.meta.url)));
