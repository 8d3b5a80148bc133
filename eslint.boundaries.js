// The house rules of src/ (docs/architecture.md, "Layers and rooms"), enforced by one ESLint
// rule of our own (`house/imports`): which layer may import which, that an import into another
// layer goes through that layer's index.ts (its public face), and the order of the engine's
// role folders. It sees every way one module names another: `import`, `import type`,
// `export … from`, `import()` and TypeScript's `import('…')` types. Tests and benchmarks may
// reach inside; src may not.
import path from 'node:path';

/** Each layer and the layers it may import. `cli` and `src/index.ts` may import every layer. */
export const LAYERS = {
  common: [],
  service: [],
  client: ['service', 'common'],
  workflow: ['service', 'common'],
  engine: ['service', 'client', 'workflow', 'common'],
  report: ['engine', 'workflow', 'service', 'common'],
  emulator: ['service', 'common'],
};
const TOP = ['cli', '(root)'];

/**
 * The engine's role folders, lowest first: a folder may import only folders of a lower rank
 * (`contracts` holds the types they all share). The files at the engine's root compose them
 * and no role folder may import those.
 */
export const ENGINE_ORDER = [['contracts'], ['cache', 'webhooks'], ['quote'], ['run'], ['journal'], ['queue']];
export const ENGINE_ROLES = ENGINE_ORDER.flat();
const rank = (role) => ENGINE_ORDER.findIndex((tier) => tier.includes(role));

/** Public faces: what another layer may import of a layer. */
const FACES = { engine: ['src/engine/index.js', 'src/engine/distributed.js'], report: ['src/report/index.js', 'src/report/metrics.js', 'src/report/tracing.js'] };
const faceOf = (layer) => FACES[layer] ?? [`src/${layer}/index.js`];

const posix = (p) => p.split(path.sep).join('/');

function layerOf(rel) {
  const parts = rel.split('/');
  if (parts.length === 2) return '(root)';
  return parts[1];
}

function engineRoomOf(rel) {
  const parts = rel.split('/');
  if (parts.length > 3 && ENGINE_ROLES.includes(parts[2])) return parts[2];
  return '(composition)';
}

/** Why `spec` may not be imported from `file` (both repo-relative), or null. */
export function boundaryViolation(file, spec) {
  if (!spec.startsWith('.')) return null;
  const to = posix(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  if (!to.startsWith('src/')) return null;
  const from = layerOf(file);
  const target = layerOf(to);
  // The library's entry (src/index.ts) picks what it publishes from anywhere.
  if (from === '(root)') return null;
  if (from !== target) {
    if (target === '(root)') return `${from}/ may not import src/index.ts (the library's entry).`;
    if (!TOP.includes(from) && !LAYERS[from]?.includes(target)) {
      const allowed = LAYERS[from] ?? [];
      return `${from}/ may not import ${target}/ (docs/architecture.md: ${from} imports ${allowed.length ? allowed.join(', ') : 'nothing of ours'}).`;
    }
    if (!faceOf(target).includes(to)) return `import ${target}/ through its index.ts, its public face.`;
    return null;
  }
  if (from !== 'engine') return null;
  const a = engineRoomOf(file);
  const b = engineRoomOf(to);
  if (a === b) return null;
  if (a !== '(composition)') {
    if (b === '(composition)') return `engine/${a}/ may not import the engine's composition root (${to}).`;
    if (rank(b) >= rank(a)) {
      return `engine/${a}/ may not import engine/${b}/ (engine order, lowest first: ${ENGINE_ORDER.map((t) => t.join(' ')).join(' < ')}).`;
    }
  }
  if (b !== 'contracts' && b !== '(composition)' && to !== `src/engine/${b}/index.js`) return `import engine/${b}/ through its index.ts, its public face.`;
  return null;
}

const importsRule = {
  meta: { type: 'problem', schema: [], docs: { description: 'The layers and rooms of src/ (docs/architecture.md).' } },
  create(context) {
    const file = posix(path.relative(context.cwd, context.filename));
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const message = boundaryViolation(file, source.value);
      if (message) context.report({ node, message });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
      TSExternalModuleReference: (node) => check(node, node.expression),
    };
  },
};

export const housePlugin = { meta: { name: 'house' }, rules: { imports: importsRule } };

export const boundaryConfigs = [{ files: ['src/**/*.ts'], plugins: { house: housePlugin }, rules: { 'house/imports': 'error' } }];
