/**
 * The simulator's offer targets (sim/targets.ts): the targets a bidder draws always take at least
 * one asset of their collection, and the simulator's own predicate reads each trait bound as the
 * contract words it, so the `offer_targets` invariant can tell a wrong fill from a right one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { distinct, drawTarget, targetTakes, type CatalogEntry } from '../../sim/targets.js';
import { Rng } from '../../sim/rng.js';

const catalog: CatalogEntry[] = [
  { asset: 'SIMA', collection: 'reds', max_supply_units: 1, issued_year: 2016, series: 1 },
  { asset: 'SIMB', collection: 'reds', max_supply_units: 3, issued_year: 2019, series: 2 },
  { asset: 'SIMC', collection: 'blues', max_supply_units: 2, issued_year: 2016, series: 1 },
];
const entry = (asset: string) => catalog.find((e) => e.asset === asset);

void test('offer targets: every drawn target takes a member of its collection, and only members', () => {
  const rng = new Rng(7);
  const kinds = new Set<string>();
  for (let i = 0; i < 400; i++) {
    const t = drawTarget(catalog, rng, 'reds');
    kinds.add(t.scope === 'asset' ? 'asset' : Object.keys(t).filter((k) => k !== 'scope' && k !== 'collection').join(',') || 'collection');
    const takes = catalog.filter((e) => targetTakes(t, e)).map((e) => e.asset);
    assert.ok(takes.length >= 1, JSON.stringify(t));
    assert.ok(!takes.includes('SIMC'), `a reds target takes no blues: ${JSON.stringify(t)}`);
  }
  // Every shape is drawn: an asset, the collection, and each trait.
  assert.deepEqual([...kinds].sort(), ['asset', 'collection', 'issued_year', 'max_supply_units', 'min_supply_units', 'series']);
});

void test('offer targets: each bound as the contract words it', () => {
  assert.equal(targetTakes({ scope: 'asset', asset: 'SIMA' }, entry('SIMA')), true);
  assert.equal(targetTakes({ scope: 'asset', asset: 'SIMA' }, entry('SIMB')), false);
  assert.equal(targetTakes({ scope: 'asset', asset: 'SIMA', collection: 'blues' }, entry('SIMA')), false, 'an asset target that names a collection needs the asset in it');
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds' }, entry('SIMC')), false);
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds', issued_year: 2016 }, entry('SIMB')), false);
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds', series: 2 }, entry('SIMB')), true);
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds', max_supply_units: 2 }, entry('SIMB')), false, 'max: the supply at most this');
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds', min_supply_units: 2 }, entry('SIMB')), true, 'min: the supply at least this');
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds', min_supply_units: 2 }, entry('SIMA')), false);
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds', artist: 'anyone' }, entry('SIMA')), false);
  assert.equal(targetTakes({ scope: 'collection', collection: 'reds' }, undefined), false, 'an asset outside the catalogue is in no collection');
});

void test('offer targets: a bidder names an alternative once, whatever its price', () => {
  const got = distinct([
    { scope: 'collection' as const, collection: 'reds', price_sats: 6_000 },
    { scope: 'collection' as const, collection: 'reds', price_sats: 9_000 },
    { scope: 'collection' as const, collection: 'reds', series: 1, price_sats: 9_000 },
  ]);
  assert.deepEqual(got.map((t) => t.price_sats), [6_000, 9_000]);
});
