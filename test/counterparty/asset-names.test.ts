import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AssetNameError, assetIdFromName, assetNameFromId, isCanonicalAssetId, isNamedAsset, isNumericAsset,
  NUMERIC_ASSET_MAX, NUMERIC_ASSET_MIN, parseSubassetLongname, regtestSubassetName, resolveAssetName,
} from '../../src/counterparty/asset-names.js';

void test('BTC and XCP have ids 0 and 1', () => {
  assert.equal(assetIdFromName('BTC'), 0n);
  assert.equal(assetIdFromName('XCP'), 1n);
  assert.equal(assetNameFromId(0n), 'BTC');
  assert.equal(assetNameFromId(1n), 'XCP');
});

void test('named assets are base 26 (values from Core generate_asset_id)', () => {
  assert.equal(assetIdFromName('BAAA'), 17576n);
  assert.equal(assetIdFromName('PEPECASH'), 121892899915n);
  assert.equal(assetIdFromName('ZZZZZZZZZZZZ'), 95428956661682175n);
  for (const n of ['BAAA', 'PEPECASH', 'ZZZZZZZZZZZZ', 'RAREPEPE']) assert.equal(assetNameFromId(assetIdFromName(n)), n);
});

void test('named asset rules: 4–12 letters, B–Z first', () => {
  assert.ok(isNamedAsset('BAAA'));
  assert.ok(isNamedAsset('ZZZZZZZZZZZZ'));
  assert.ok(!isNamedAsset('BAA'));
  assert.ok(!isNamedAsset('ABCD'));
  assert.ok(!isNamedAsset('BAAAAAAAAAAAA'));
  assert.ok(!isNamedAsset('Baaa'));
  assert.throws(() => assetIdFromName('ABCD'), AssetNameError);
  assert.throws(() => assetIdFromName('BCDEFGHIJKLMN'), /long asset names must be numeric/);
  assert.throws(() => assetIdFromName('BC1D'), /invalid character/);
  assert.throws(() => assetIdFromName('BCD'), /too short/);
});

void test('numeric assets: A + id in [26^12+1, 2^64-1]', () => {
  assert.equal(assetIdFromName(`A${NUMERIC_ASSET_MIN}`), NUMERIC_ASSET_MIN);
  assert.equal(assetNameFromId(NUMERIC_ASSET_MAX), `A${NUMERIC_ASSET_MAX}`);
  assert.throws(() => assetIdFromName(`A${NUMERIC_ASSET_MIN - 1n}`), /not in range/);
  assert.throws(() => assetIdFromName(`A${NUMERIC_ASSET_MAX + 1n}`), /not in range/);
  assert.throws(() => assetNameFromId(NUMERIC_ASSET_MAX + 1n), /too high/);
  assert.ok(isNumericAsset('A95428956980101314'));
  assert.ok(!isNumericAsset('A095428956980101314'), 'leading zero is not canonical');
  // Ids just below the numeric range are named assets of 13 letters, which Core refuses as names.
  assert.equal(assetNameFromId(NUMERIC_ASSET_MIN - 1n).length, 13);
});

void test('isCanonicalAssetId', () => {
  for (const ok of ['XCP', 'PEPECASH', 'A95428956980101314']) assert.ok(isCanonicalAssetId(ok), ok);
  for (const bad of ['BTC', 'pepecash', 'PEPECASH.sub', 'A095428956980101314', 'A123', '', 'AAAA']) assert.ok(!isCanonicalAssetId(bad), bad);
});

void test('subasset longnames', () => {
  assert.deepEqual(parseSubassetLongname('PARENT.child'), { ok: true, parent: 'PARENT', child: 'child' });
  assert.deepEqual(parseSubassetLongname('A95428956980101314.x.y-z_@!'), { ok: true, parent: 'A95428956980101314', child: 'x.y-z_@!' });
  for (const bad of ['XCP.child', 'BTC.x', 'ABC.x', 'PARENT.', 'PARENT..x', 'PARENT.x.', 'PARENT.a b', 'PARENT']) {
    assert.equal(parseSubassetLongname(bad).ok, false, bad);
  }
  assert.equal(parseSubassetLongname(`PARENT.${'a'.repeat(250)}`).ok, false);
});

void test('regtest subasset names match Core gen_random_asset_name', () => {
  assert.equal(regtestSubassetName('PARENT.child'), 'A95428959371716303');
  assert.equal(regtestSubassetName('MYASSET.sub'), 'A95428957058544520');
  assert.equal(regtestSubassetName('MYASSET.sub', 1), 'A95428957058544521');
});

void test('resolveAssetName maps a longname through the lookup', () => {
  const lookup = (l: string) => (l === 'PARENT.child' ? 'A95428959371716303' : null);
  assert.equal(resolveAssetName('PARENT.child', lookup), 'A95428959371716303');
  assert.equal(resolveAssetName('PARENT.other', lookup), null);
  assert.equal(resolveAssetName('XCP', lookup), 'XCP');
  assert.equal(resolveAssetName('bad name', lookup), null);
});
