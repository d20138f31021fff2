import fs from 'node:fs';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The layers of src/, lowest first. A file may import its own layer and the
 * ones below it, never one above (docs/architecture.md says why each sits where
 * it does). The store sits below the chain adapters because the devnet keeps
 * its chain in the market's own store.
 */
const LAYERS = [
  { name: 'core', paths: ['./src/bitcoin', './src/counterparty', './src/util', './src/clock.ts', './src/config.ts'] },
  { name: 'store', paths: ['./src/store'] },
  { name: 'chain', paths: ['./src/chain'] },
  {
    name: 'infrastructure (settlement, indexer, jobs, limits, http, context)',
    paths: ['./src/settlement', './src/events', './src/cluster', './src/indexer', './src/jobs', './src/limits', './src/http', './src/signer', './src/context.ts', './src/area.ts'],
  },
  // What every way to fill shares (docs/architecture.md "The trade kernel"): below every area, above the machinery.
  { name: 'trade kernel', paths: ['./src/trade'] },
  { name: 'modules', paths: ['./src/modules'] },
  { name: 'app and cli', paths: ['./src/app.ts', './src/bootstrap.ts', './src/jobs.ts', './src/cli', './src/demo'] },
];

const layerZones = LAYERS.flatMap((layer, i) =>
  LAYERS.slice(i + 1).map((above) => ({
    target: layer.paths,
    from: above.paths,
    message: `layer rule: ${layer.name} must not import from ${above.name} (a lower layer never looks up)`,
  })),
);

/**
 * The areas of src/modules, lowest first. An area imports the kernel, the layers below and the
 * areas below it in this list, and those only through their published interface, the area's
 * `index.ts`: never another area's internals, never an area above. So the areas form no circle,
 * and a new import that would close one fails lint. Every folder of src/modules must be listed
 * (a new area is placed here when it is made).
 */
export const AREA_ORDER = [
  'auth',
  'transactions',
  'listings',
  'market',
  'fills',
  'checkout',
  'inventory',
  'offers',
  'exact-offers',
  'counters',
  'policy-offers',
  'events',
  'webhooks',
  'fees',
  'health',
  'signer',
  'devnet',
  'live-page',
];

const areaFolders = fs.readdirSync(new URL('./src/modules', import.meta.url), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
for (const a of areaFolders) if (!AREA_ORDER.includes(a)) throw new Error(`eslint.config.js: src/modules/${a} is not in AREA_ORDER; place the new area there`);

const areaZones = AREA_ORDER.flatMap((area, i) =>
  AREA_ORDER.flatMap((other, j) => {
    if (i === j) return [];
    const target = `./src/modules/${area}`;
    const from = `./src/modules/${other}`;
    return j > i
      ? [{ target, from, message: `area rule: ${area} sits below ${other} in AREA_ORDER and must not import it (no circles between areas)` }]
      : [{ target, from, except: ['./index.ts'], message: `area rule: ${area} may use ${other} only through its published interface src/modules/${other}/index.ts` }];
  }),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'client/dist/**', 'client/node_modules/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test's test()/describe() return promises the runner itself awaits.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      // `interface DatabaseSchema extends XTables {}` is how an area adds its tables to the store's schema.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      // no-cycle follows imports through the files it parses: it must know .ts files are modules.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      // Type-only imports count too: a lower layer that names an upper layer's types depends on it.
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...layerZones, ...areaZones] }],
      // No circle between files either (type-only imports aside: they vanish at run time).
      'import-x/no-cycle': 'error',
    },
  },
);
