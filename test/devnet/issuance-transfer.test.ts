/**
 * A transfer of issuance rights on the devnet, as Counterparty Core records it: the asset's
 * first `issuer` stays, its `owner` (who holds the rights now) moves; only the owner may
 * reissue or transfer again; a reorg and a reopen keep the ledger exact. Read through both
 * Counterparty adapters: the devnet's own and the Core adapter over the devnet's API v2 face.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet } from '../helpers/wallets.js';
import { startDevnetFaces } from '../chain/devnet-faces.js';

const first = makeWallet('p2wpkh', 'transfer-first');
const second = makeWallet('p2tr', 'transfer-second');
const third = makeWallet('p2pkh', 'transfer-third');

void test('a transfer moves the owner, keeps the first issuer, and only the owner may reissue or transfer', async (t) => {
  const f = await startDevnetFaces({ attachFeeRaw: '0' });
  t.after(() => f.close());
  const dn = f.t.devnet;
  const { asset } = await dn.issueAsset({ asset: 'RIGHTSCARD', issuer: first.address, quantity_raw: '5', divisible: false });
  const rights = async () => {
    const [own, core] = [await dn.counterparty.getAsset(asset), await f.cp.getAsset(asset)];
    assert.deepEqual(core, own, 'the Core adapter over the API face reads what the devnet adapter reads');
    return [own!.issuer, own!.owner, own!.supply_raw];
  };
  assert.deepEqual(await rights(), [first.address, first.address, '5']);

  await assert.rejects(dn.transferIssuance({ asset, from: second.address, to: third.address }), /belongs to/);
  await dn.transferIssuance({ asset, from: first.address, to: second.address });
  const height = (await f.btc.getTip()).height;
  assert.deepEqual(await rights(), [first.address, second.address, '5']);
  const [event] = await dn.counterparty.getBlockEvents(height, ['ASSET_ISSUANCE']);
  assert.deepEqual([event!.params.source, event!.params.issuer, event!.params.transfer, event!.params.quantity, event!.params.asset_events], [first.address, second.address, true, 0, 'transfer']);

  // The former owner can neither reissue nor transfer; the new one can.
  await assert.rejects(dn.issueAsset({ asset, issuer: first.address, quantity_raw: '1', divisible: false }), /belongs to/);
  await assert.rejects(dn.transferIssuance({ asset, from: first.address, to: third.address }), /belongs to/);
  await dn.issueAsset({ asset, issuer: second.address, quantity_raw: '1', divisible: false });
  assert.deepEqual(await rights(), [first.address, second.address, '6']);

  // Disconnecting the transfer's block gives the rights back; mined again, they move again; a reopen keeps them.
  await dn.invalidateBlock((await f.btc.getBlockHash(height))!);
  assert.deepEqual(await rights(), [first.address, first.address, '5']);
  await dn.mine(1);
  assert.deepEqual(await rights(), [first.address, second.address, '6']);
  await dn.reorg(2);
  assert.deepEqual(await rights(), [first.address, second.address, '6'], 'the reorg mines the disconnected operations again');
  await dn.transferIssuance({ asset, from: second.address, to: third.address });
  await f.t.reopen({ attachFeeRaw: '0' });
  const reopened = f.t.devnet;
  const after = await reopened.counterparty.getAsset(asset);
  assert.deepEqual([after!.issuer, after!.owner], [first.address, third.address]);
});
