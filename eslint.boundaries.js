// The house rules of src/ (README "Layout"), enforced with ESLint's own no-restricted-imports:
// which layer may import which, and that an import into another folder goes through that
// folder's index.ts (its public face). Tests and benchmarks may reach inside; src may not.

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
const ALL = ['common', 'service', 'client', 'workflow', 'engine', 'report', 'emulator', 'cli'];

/** The engine's role folders: each is reached from its siblings through its index.ts. */
export const ENGINE_ROLES = ['quote', 'journal', 'cache', 'webhooks', 'run', 'queue'];

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A relative specifier that enters folder `name` at all. */
const into = (name) => `^(\\.\\.?/)+(.*/)?${esc(name)}/`;

function layerPatterns(layer, allowed) {
  const patterns = [];
  for (const other of ALL) {
    if (other === layer) continue;
    if (!allowed.includes(other)) {
      patterns.push({ regex: into(other), message: `${layer}/ may not import ${other}/ (README "Layout": ${layer} imports ${allowed.length ? allowed.join(', ') : 'nothing of ours'}).` });
    } else {
      patterns.push({ regex: `^(\\.\\./)+${esc(other)}/(?!index\\.js$)`, message: `import ${other}/ through its index.ts, its public face.` });
    }
  }
  return patterns;
}

function rolePatterns(self, depth) {
  const up = depth === 0 ? '\\./' : '\\.\\./';
  return ENGINE_ROLES.filter((r) => r !== self).map((role) => ({
    regex: `^${up}${esc(role)}/(?!index\\.js$)`,
    message: `import engine/${role}/ through its index.ts, its public face.`,
  }));
}

const rule = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

export const boundaryConfigs = [
  ...Object.entries(LAYERS)
    .filter(([layer]) => layer !== 'engine')
    .map(([layer, allowed]) => ({ files: [`src/${layer}/**/*.ts`], rules: rule(layerPatterns(layer, allowed)) })),
  { files: ['src/engine/*.ts'], rules: rule([...layerPatterns('engine', LAYERS.engine), ...rolePatterns(null, 0)]) },
  ...ENGINE_ROLES.map((role) => ({
    files: [`src/engine/${role}/**/*.ts`],
    rules: rule([...layerPatterns('engine', LAYERS.engine), ...rolePatterns(role, 1)]),
  })),
  {
    files: ['src/cli/**/*.ts'],
    rules: rule(ALL.filter((l) => l !== 'cli').map((other) => ({ regex: `^(\\.\\./)+${esc(other)}/(?!index\\.js$)`, message: `import ${other}/ through its index.ts, its public face.` }))),
  },
];
