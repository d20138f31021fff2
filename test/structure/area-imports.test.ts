/**
 * The floor under the areas, checked from the sources themselves (eslint.config.js enforces the
 * same rules at lint time): the trade kernel (src/trade) imports no area; an area reaches another
 * only through its published `index.ts`; and the areas' imports form no circle.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { REPO_ROOT } from '../helpers/fixtures.js';

const SRC = path.join(REPO_ROOT, 'src');
const MODULES = path.join(SRC, 'modules');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import or re-export of a file, resolved to the .ts file it names. */
function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => path.resolve(path.dirname(file), s).replace(/\.js$/, '.ts'));
}

const areaOf = (file: string): string | null => {
  const rel = path.relative(MODULES, file);
  return rel.startsWith('..') || !rel.includes(path.sep) ? null : rel.split(path.sep)[0]!;
};

void it('the trade kernel imports no area', () => {
  const offenders = sources(path.join(SRC, 'trade')).flatMap((f) => imports(f).filter((t) => t.startsWith(MODULES + path.sep)).map((t) => `${path.relative(REPO_ROOT, f)} -> ${path.relative(REPO_ROOT, t)}`));
  assert.deepEqual(offenders, []);
});

void it("an area reaches another only through that area's index.ts, and the areas form no circle", () => {
  const offenders: string[] = [];
  const edges = new Map<string, Set<string>>();
  for (const f of sources(MODULES)) {
    const from = areaOf(f);
    if (!from) continue;
    for (const t of imports(f)) {
      const to = areaOf(t);
      if (!to || to === from) continue;
      if (path.basename(t) !== 'index.ts' || path.dirname(t) !== path.join(MODULES, to)) offenders.push(`${path.relative(REPO_ROOT, f)} -> ${path.relative(REPO_ROOT, t)}`);
      (edges.get(from) ?? edges.set(from, new Set()).get(from)!).add(to);
    }
  }
  assert.deepEqual(offenders, []);
  // Depth-first search for a back edge: any circle between areas is reported with its path.
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (a: string, trail: string[]) => {
    state.set(a, 'open');
    for (const b of edges.get(a) ?? []) {
      if (state.get(b) === 'open') circles.push([...trail.slice(trail.indexOf(b)), b].join(' -> '));
      else if (!state.has(b)) visit(b, [...trail, b]);
    }
    state.set(a, 'done');
  };
  for (const a of edges.keys()) if (!state.has(a)) visit(a, [a]);
  assert.deepEqual(circles, []);
});
