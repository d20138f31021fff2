/** The offer target predicate: normalization refusals, kinds, and every trait rule at its edges. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assetMatches, isOneUnit, matchesTarget, normalizeTarget, oneUnitRaw, type AssetTraits, type PolicyTarget, type TargetInput } from '../../src/modules/market/policy-predicate.js';

const ok = (input: TargetInput): PolicyTarget => {
  const n = normalizeTarget(input);
  assert.ok(n.ok, JSON.stringify(n));
  return n.target;
};
const refused = (input: TargetInput) => {
  const n = normalizeTarget(input);
  assert.equal(n.ok, false, JSON.stringify(input));
  return n.ok ? '' : n.field;
};

const card = (over: Partial<AssetTraits> = {}): AssetTraits => ({
  asset: 'PEPECARD', collection_slug: 'rare', max_supply_units: 300, issued_year: 2016, series: 4, artist: 'Mondo Pepe', ...over,
});

test('normalize: scope, asset and collection rules', () => {
  assert.equal(refused({ scope: 'trait', collection: 'rare' }), 'scope');
  assert.equal(refused({ scope: 'asset' }), 'asset');
  assert.equal(refused({ scope: 'asset', asset: 'pepecard' }), 'asset', 'not canonical');
  assert.equal(refused({ scope: 'asset', asset: 'PARENT.child' }), 'asset', 'a longname is never an id');
  assert.equal(refused({ scope: 'collection' }), 'collection');
  assert.equal(refused({ scope: 'collection', collection: '' }), 'collection');
  assert.equal(refused({ scope: 'collection', collection: 'rare', asset: 'PEPECARD' }), 'asset');
  assert.deepEqual(ok({ scope: 'collection', collection: 'rare' }), {
    scope: 'collection', kind: 'collection', asset: null, collection: 'rare', max_supply_units: null, min_supply_units: null, issued_year: null, series: null, artist: null,
  });
  assert.equal(ok({ scope: 'collection', collection: 'rare', series: 0 }).kind, 'trait');
  assert.equal(ok({ scope: 'collection', collection: 'rare', artist: ' x ' }).kind, 'trait');
  assert.equal(ok({ scope: 'asset', asset: 'A100000000000000000', issued_year: 2016 }).kind, 'asset');
});

test('normalize: integer filters, bounds and min above max', () => {
  const base = { scope: 'collection', collection: 'rare' } as const;
  for (const [field, value] of [['max_supply_units', 0], ['min_supply_units', 0], ['issued_year', -1], ['series', -1], ['series', 1.5], ['max_supply_units', 2 ** 53]] as const) {
    assert.equal(refused({ ...base, [field]: value }), field, `${field}=${value}`);
  }
  assert.equal(refused({ ...base, min_supply_units: 11, max_supply_units: 10 }), 'min_supply_units');
  const t = ok({ ...base, min_supply_units: 10, max_supply_units: 10, issued_year: 0, series: 0 });
  assert.deepEqual([t.min_supply_units, t.max_supply_units, t.issued_year, t.series], [10, 10, 0, 0]);
});

test('normalize: artist is trimmed, blank is no filter, at most 200 characters', () => {
  const base = { scope: 'collection', collection: 'rare' } as const;
  assert.equal(ok({ ...base, artist: '  Mondo Pepe \t' }).artist, 'Mondo Pepe');
  assert.equal(ok({ ...base, artist: '   ' }).artist, null);
  assert.equal(ok({ ...base, artist: '' }).kind, 'collection');
  assert.equal(ok({ ...base, artist: `  ${'a'.repeat(200)}  ` }).artist?.length, 200);
  assert.equal(refused({ ...base, artist: 'a'.repeat(201) }), 'artist');
});

test('match: collection membership and asset scope', () => {
  const any = ok({ scope: 'collection', collection: 'rare' });
  assert.equal(matchesTarget(any, card()), true);
  assert.equal(matchesTarget(any, card({ collection_slug: 'other' })), false);
  const one = ok({ scope: 'asset', asset: 'PEPECARD' });
  assert.equal(matchesTarget(one, card({ collection_slug: 'other' })), true, 'asset scope without a collection ignores membership');
  assert.equal(matchesTarget(one, card({ asset: 'PEPECARE' })), false);
  assert.equal(matchesTarget(ok({ scope: 'asset', asset: 'PEPECARD', collection: 'rare' }), card({ collection_slug: 'other' })), false);
});

test('match: max and min supply are inclusive bounds on the known max supply', () => {
  const at = (f: Partial<TargetInput>, supply: number | null) => matchesTarget(ok({ scope: 'collection', collection: 'rare', ...f }), card({ max_supply_units: supply }));
  assert.deepEqual([at({ max_supply_units: 300 }, 300), at({ max_supply_units: 299 }, 300), at({ max_supply_units: 301 }, 300)], [true, false, true]);
  assert.deepEqual([at({ min_supply_units: 300 }, 300), at({ min_supply_units: 301 }, 300), at({ min_supply_units: 1 }, 300)], [true, false, true]);
  assert.equal(at({ min_supply_units: 100, max_supply_units: 500 }, 300), true);
  assert.equal(at({ max_supply_units: 10_000 }, null), false, 'unknown supply never satisfies a supply filter');
  assert.equal(at({ min_supply_units: 1 }, null), false);
  assert.equal(at({}, null), true, 'no filter, no requirement');
});

test('match: year and series are equalities; a missing trait never matches a filter', () => {
  const t = ok({ scope: 'collection', collection: 'rare', issued_year: 2016, series: 4 });
  assert.equal(matchesTarget(t, card()), true);
  assert.equal(matchesTarget(t, card({ issued_year: 2017 })), false);
  assert.equal(matchesTarget(t, card({ series: 5 })), false);
  assert.equal(matchesTarget(t, card({ series: null })), false);
  assert.equal(matchesTarget(ok({ scope: 'collection', collection: 'rare', series: 0 }), card({ series: 0 })), true);
});

test('match: artist compares trimmed, ASCII case-insensitively only', () => {
  const by = (artist: string, credit: string | null) => matchesTarget(ok({ scope: 'collection', collection: 'rare', artist }), card({ artist: credit }));
  assert.equal(by('mondo pepe', 'Mondo Pepe'), true);
  assert.equal(by('  MONDO PEPE ', ' Mondo Pepe  '), true);
  assert.equal(by('Mondo', 'Mondo Pepe'), false, 'no substring match');
  assert.equal(by('émile', 'Émile'), false, 'non-ASCII letters are compared exactly');
  assert.equal(by('Émile', 'Émile'), true);
  assert.equal(by('anyone', null), false);
});

test('an asset matches when any of its memberships does', () => {
  const t = ok({ scope: 'collection', collection: 'rare', series: 4 });
  assert.equal(assetMatches(t, [card({ collection_slug: 'other' }), card()]), true);
  assert.equal(assetMatches(t, [card({ collection_slug: 'other' })]), false);
  assert.equal(assetMatches(t, []), false);
});

test('one whole unit: 1 raw indivisible, 10^8 raw divisible', () => {
  assert.equal(oneUnitRaw(false), '1');
  assert.equal(oneUnitRaw(true), '100000000');
  assert.deepEqual([isOneUnit('1', false), isOneUnit('2', false), isOneUnit('100000000', false)], [true, false, false]);
  assert.deepEqual([isOneUnit('100000000', true), isOneUnit('1', true), isOneUnit('200000000', true)], [true, false, false]);
});
