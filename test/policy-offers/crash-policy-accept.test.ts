/**
 * Kill -9 inside a collection-offer accept (real processes: test/helpers/crash.ts; the signer in
 * the market's process over its own directory). Twice:
 *
 * - after the signer co-signed, before the commit: nothing of the accept is in the database; the
 *   restarted market takes the same signed bytes and completes with the signature the signer
 *   recorded (it never signs a second child for the parent);
 * - after the commit, with submitpackage held at the node proxy: the node never saw the package;
 *   the restarted market's recovery submits it and the unit reaches the bidder's delivery output.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { makeWallet, signTapLeaf, type TestWallet } from '../helpers/wallets.js';
import { signPsbt } from '../helpers/market.js';
import { call, crashRig, until, type CrashRig, type Json } from '../helpers/crash.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';
import { Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';

let rig: CrashRig | undefined;
after(async () => rig?.close());

function placement(pf: Json, w: TestWallet) {
  return {
    funding_set_id: pf.funding_set_id,
    parent_psbt_hex: signPsbt(pf.parent.psbt_hex, w, pf.parent.signing.inputs_to_sign, SigHash.ALL),
    presignatures: (pf.alternatives as Json[]).map((a) => {
      const tx = Transaction.fromPSBT(hex.decode(a.child_template.psbt_hex), READ_TX_OPTS);
      const u = tx.getInput(0).witnessUtxo!;
      return { index: a.index, signature_hex: hex.encode(signTapLeaf(tx, 0, w.privateKey, hex.decode(pf.escrow.accept_leaf_hex), [{ script: u.script, amount: u.amount }], 0x83)) };
    }),
  };
}

void test('killed inside a collection-offer accept, before and after the commit: the restarted market completes it once and the unit reaches the bidder', { timeout: 240_000 }, async () => {
  rig = await crashRig('policy');
  const { proxy } = rig;
  let market = await rig.market();

  // The market wallet (its address from the capacity read) is funded; the upkeep job builds the pool.
  const cap = await until('the capacity read', async () => {
    const r = await call(market.url, 'GET', '/v1/policy-offers/capacity');
    return r.status === 200 ? (r.body.result as Json) : undefined;
  });
  await rig.coin({ address: cap.market_wallet_address } as TestWallet, 200_000);
  await until('the refill in the mempool', async () => ((await rig!.mempool()).length ? true : undefined));
  await rig.mine();
  await until('free anchors', async () => {
    const r = await call(market.url, 'GET', '/v1/policy-offers/capacity');
    return r.body.result?.free >= 2 ? true : undefined;
  });

  const sellerA = makeWallet('p2wpkh', 'policy-crash-seller-a');
  const sellerB = makeWallet('p2wpkh', 'policy-crash-seller-b');
  const unitA = await rig.attachedUnit(sellerA);
  const unitB = await rig.attachedUnit(sellerB);
  await rig.withMarketDb((db) =>
    importCatalog(db, { collections: [{ slug: 'pcrash', name: 'PCrash' }], artists: [], assets: [{ asset: unitA.asset, collection: 'pcrash' }, { asset: unitB.asset, collection: 'pcrash' }] }),
  );

  const place = async (label: string) => {
    const bidder = makeWallet('p2wpkh', `policy-crash-bidder-${label}`);
    await rig!.coin(bidder, 200_000);
    const token = await rig!.signIn(market, bidder);
    const pf = await until('the collection-offer preflight', async () => {
      const r = await call(market.url, 'POST', '/v1/policy-offers/preflight', { targets: [{ scope: 'collection', collection: 'pcrash', price_sats: 40_000 }], bidder_pubkey: hex.encode(bidder.xOnly), expires_at: Math.floor(Date.now() / 1000) + 86_400, fee_rate: 2 }, token);
      return r.status === 200 ? (r.body.result as Json) : undefined;
    });
    const placed = await call(market.url, 'POST', '/v1/policy-offers', placement(pf, bidder), token);
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    return { bidder, pf };
  };
  const quote = async (seller: TestWallet, parent: string, unit: { txid: string; vout: number }) => {
    const token = await rig!.signIn(market, seller);
    const q = await call(market.url, 'POST', '/v1/policy-accepts/preflight', { parent_txid: parent, asset_txid: unit.txid, asset_vout: unit.vout, fee_rate: 2 }, token);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    return { token, body: { accept_id: q.body.result.accept_id as string, psbt_hex: signPsbt(q.body.result.psbt_hex, seller, [1], SigHash.ALL) }, childTxid: q.body.result.expected_txid as string };
  };

  // 1. Killed after the co-signature, before the commit.
  const a = await place('a');
  const qa = await quote(sellerA, a.pf.parent.expected_txid, unitA.outpoint);
  await market.kill('SIGKILL');
  market = await rig.market('policy-accept-after-cosign');
  await call(market.url, 'POST', '/v1/policy-accepts', qa.body, qa.token).catch(() => undefined);
  await rig.died(market, 'after the co-signature');
  await rig.withMarketDb(async (db) => {
    const s = await db.selectFrom('policy_funding_sets').select('state').where('parent_txid', '=', a.pf.parent.expected_txid).executeTakeFirstOrThrow();
    assert.equal(s.state, 'open', 'nothing of the accept was committed');
    assert.equal((await db.selectFrom('settlements').select('id').where('kind', '=', 'policy_accept').execute()).length, 0);
  });
  market = await rig.market();
  const doneA = await call(market.url, 'POST', '/v1/policy-accepts', qa.body, qa.token);
  assert.equal(doneA.status, 200, JSON.stringify(doneA.body));
  assert.equal(doneA.body.result.txid, qa.childTxid);

  // 2. Killed after the commit, while submitpackage hangs at the node.
  const b = await place('b');
  const qb = await quote(sellerB, b.pf.parent.expected_txid, unitB.outpoint);
  await market.kill('SIGKILL');
  market = await rig.market('policy-accept-after-journal');
  proxy.state.hold = true;
  const pending = call(market.url, 'POST', '/v1/policy-accepts', qb.body, qb.token).catch(() => undefined);
  await rig.died(market, 'after the journal');
  await pending;
  assert.ok(!(await rig.mempool()).includes(qb.childTxid), 'the node never saw the package before the crash');
  proxy.state.hold = false;
  market = await rig.market();
  await until('recovery to relay the package', async () => ((await rig!.mempool()).includes(qb.childTxid) ? true : undefined));
  await rig.mine();
  for (const [q, unit] of [[qa, unitA], [qb, unitB]] as const) {
    await until('the unit on the bidder\'s delivery output', async () => {
      const r = await call(rig!.devnet.url, 'GET', `/devnet/counterparty/v2/utxos/${q.childTxid}:0/balances`);
      const held = ((r.body.result ?? []) as Json[]).filter((x) => x.asset === unit.asset);
      return held.length ? held : undefined;
    });
  }
  const again = await call(market.url, 'POST', '/v1/policy-accepts', qb.body, qb.token);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.result.already_completed, true);
  await rig.withMarketDb(async (db) => {
    assert.equal((await db.selectFrom('settlements').select('id').where('kind', '=', 'policy_accept').execute()).length, 2, 'one settlement per accept, none twice');
  });
});
