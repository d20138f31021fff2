// The compiled copy of the repository that `npm test` runs: the same tree (src, test, sim, client,
// bench, docs, the root's files) in a temporary directory, every .ts file beside its JavaScript
// (esbuild's per-file transform, the one tsx applies, with an inline source map so stacks name the
// TypeScript lines). Plain `node` then loads it without tsx's module hooks, which cost about 2 s
// of CPU per process that loads the app: the suite starts over three hundred test processes and
// hundreds of child markets on a 2-core CI machine. Paths relative to a file or to the root
// (fixtures, assets, package.json, REPO_ROOT) hold in the copy as in the repository;
// node_modules is the repository's own (a link). TEST_TSX=1 runs the sources under tsx instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

const COPIED_DIRS = ['src', 'test', 'sim', 'client', 'bench', 'docs', 'scripts'];
const SKIP = new Set(['node_modules', 'dist', 'data', '.git']);

function walk(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Builds the copy of `root` and answers its directory (the caller removes it). */
export async function buildTestTree(root) {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-test-tree-'));
  const sources = [];
  for (const dir of COPIED_DIRS) {
    const from = path.join(root, dir);
    if (!fs.existsSync(from)) continue;
    for (const file of walk(from)) {
      const to = path.join(tree, path.relative(root, file));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(file, to);
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) sources.push(file);
    }
  }
  for (const e of fs.readdirSync(root, { withFileTypes: true })) {
    if (e.isFile()) fs.copyFileSync(path.join(root, e.name), path.join(tree, e.name));
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'), 'dir');
  if (fs.existsSync(path.join(root, 'client', 'node_modules'))) {
    fs.symlinkSync(path.join(root, 'client', 'node_modules'), path.join(tree, 'client', 'node_modules'), 'dir');
  }
  await build({
    entryPoints: sources,
    outdir: tree,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // JSON imports carry their attribute (`with { type: 'json' }`), which Node 20.10+ reads; esbuild's node20 table would drop it.
    supported: { 'import-attributes': true },
    sourcemap: 'inline',
    tsconfig: path.join(root, 'tsconfig.json'),
    logLevel: 'error',
  });
  return tree;
}
