// Writes the GitHub Action's prebuilt bundle, committed as action/dist/ (the convention of
// actions/typescript-action: the runner runs it as it is, with no install step):
//   index.mjs                the action's entry (action/run.mjs; Node built-ins only)
//   bin/deflow.js, *.cjs     the CLI bundle of `npm run build` (dist/bin/: the entry and its chunks,
//   bin/package.json         which marks them CommonJS)
//   bin/validators/*.cjs     the precompiled workflow validators, each bundled with the parts
//                            of ajv's runtime it requires: nothing is loaded from node_modules
// `node scripts/build-action.mjs [DIST] [OUT]`: DIST is a build's output folder (default
// dist/, built by `npm run build`), OUT the folder written (default action/dist/).
// test/action/action-dist.slow.test.ts fails when action/dist/ differs from a fresh build.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = resolve(process.argv[2] ?? resolve(root, 'dist'));
const out = resolve(process.argv[3] ?? resolve(root, 'action', 'dist'));
rmSync(out, { recursive: true, force: true });
mkdirSync(resolve(out, 'bin', 'validators'), { recursive: true });

copyFileSync(resolve(root, 'action', 'run.mjs'), resolve(out, 'index.mjs'));
for (const file of ['deflow.js', 'package.json', ...readdirSync(resolve(dist, 'bin')).filter((name) => name.endsWith('.cjs')).sort()]) copyFileSync(resolve(dist, 'bin', file), resolve(out, 'bin', file));
const validators = resolve(dist, 'bin', 'validators');
for (const file of readdirSync(validators).filter((name) => name.endsWith('.cjs')).sort()) {
  await build({
    entryPoints: [resolve(validators, file)],
    outfile: resolve(out, 'bin', 'validators', file),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // Resolved from this repository's node_modules wherever the build's dist/ is.
    nodePaths: [resolve(root, 'node_modules')],
    // Minified: no comment or module key names a path of the machine that built it, so that a
    // build anywhere writes the same bytes.
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
}
