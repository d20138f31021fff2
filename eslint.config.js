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
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      // Type-only imports count too: a lower layer that names an upper layer's types depends on it.
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones }],
    },
  },
);
