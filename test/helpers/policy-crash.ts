/**
 * What the collection-offer accept crash tests share (test/policy-offers/crash-policy-accept-*.test.ts,
 * one file a kill point): a market whose anchor pool has been funded and confirmed, a seller's unit
 * under a bidder's collection offer with the seller's signed accept quoted, and the end every
 * accept must reach (the unit on the bidder's delivery output, the same bytes answered as
 * completed, one settlement).
 */
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import { makeWallet, type TestWallet } from './wallets.js';
import { signPsbt } from './market.js';
import { call, until, type CrashRig, type Json, type Market } from './crash.js';
import { placementBody } from '../policy-offers/policy-helpers.js';
import { importCatalog } from '../../src/modules/market/catalog-import.js';

/** A market on the rig's store whose wallet (its address from the capacity read) is funded; the upkeep job builds the pool and the refill confirms. */
export async function marketWithAnchors(rig: CrashRig): Promise<Market> {
  const market = await rig.market();
  const cap = await until('the capacity read', async () => {
    const r = await call(market.url, 'GET', '/v1/policy-offers/capacity');
    return r.status === 200 ? (r.body.result as Json) : undefined;
  });
  await rig.coin({ address: cap.market_wallet_address } as TestWallet, 200_000);
  await until('the refill in the mempool', async () => ((await rig.mempool()).length ? true : undefined));
  await rig.mine();
  await until('a free anchor', async () => {
    const r = await call(market.url, 'GET', '/v1/policy-offers/capacity');
    return r.body.result?.free >= 1 ? true : undefined;
  });
  return market;
}

export interface QuotedAccept {
  unit: { asset: string; outpoint: { txid: string; vout: number } };
  /** The offer's funding set's parent txid. */
  parentTxid: string;
  /** The seller's session token. */
  token: string;
  /** The accept body: the quote's id and its PSBT signed by the seller. */
  body: { accept_id: string; psbt_hex: string };
  childTxid: string;
}

/**
 * `${tag}`'s seller's attached unit in collection pcrash; `${tag}`'s bidder's collection offer
 * (40,000 sats) placed; the seller's accept of it over the unit quoted and signed.
 */
export async function quotedAccept(rig: CrashRig, market: Market, tag: string): Promise<QuotedAccept> {
  const seller = makeWallet('p2wpkh', `policy-crash-seller-${tag}`);
  const unit = await rig.attachedUnit(seller);
  await rig.withMarketDb((db) => importCatalog(db, { collections: [{ slug: 'pcrash', name: 'PCrash' }], artists: [], assets: [{ asset: unit.asset, collection: 'pcrash' }] }));

  const bidder = makeWallet('p2wpkh', `policy-crash-bidder-${tag}`);
  await rig.coin(bidder, 200_000);
  const bidderToken = await rig.signIn(market, bidder);
  const pf = await until('the collection-offer preflight', async () => {
    const r = await call(market.url, 'POST', '/v1/policy-offers/preflight', { targets: [{ scope: 'collection', collection: 'pcrash', price_sats: 40_000 }], bidder_pubkey: hex.encode(bidder.xOnly), expires_at: Math.floor(Date.now() / 1000) + 86_400, fee_rate: 2 }, bidderToken);
    return r.status === 200 ? (r.body.result as Json) : undefined;
  });
  const placed = await call(market.url, 'POST', '/v1/policy-offers', placementBody(pf, bidder), bidderToken);
  assert.equal(placed.status, 200, JSON.stringify(placed.body));

  const token = await rig.signIn(market, seller);
  const q = await call(market.url, 'POST', '/v1/policy-accepts/preflight', { parent_txid: pf.parent.expected_txid, asset_txid: unit.outpoint.txid, asset_vout: unit.outpoint.vout, fee_rate: 2 }, token);
  assert.equal(q.status, 200, JSON.stringify(q.body));
  return { unit, parentTxid: pf.parent.expected_txid as string, token, body: { accept_id: q.body.result.accept_id as string, psbt_hex: signPsbt(q.body.result.psbt_hex, seller, [1], SigHash.ALL) }, childTxid: q.body.result.expected_txid as string };
}

/**
 * Once the accept's package is in the node's mempool (`relayed` names who put it there), a block:
 * the unit reaches the bidder's delivery output (the child's output 0), the same bytes again
 * answer 200 already completed, and the store holds one policy-accept settlement, none twice.
 */
export async function assertAcceptSettled(rig: CrashRig, market: Market, a: QuotedAccept, relayed: string): Promise<void> {
  await until(relayed, async () => ((await rig.mempool()).includes(a.childTxid) ? true : undefined));
  await rig.mine();
  await until('the unit on the bidder\'s delivery output', async () => {
    const r = await call(rig.devnet.url, 'GET', `/devnet/counterparty/v2/utxos/${a.childTxid}:0/balances`);
    const held = ((r.body.result ?? []) as Json[]).filter((x) => x.asset === a.unit.asset);
    return held.length ? held : undefined;
  });
  const again = await call(market.url, 'POST', '/v1/policy-accepts', a.body, a.token);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.result.already_completed, true);
  await rig.withMarketDb(async (db) => {
    assert.equal((await db.selectFrom('settlements').select('id').where('kind', '=', 'policy_accept').execute()).length, 1, 'one settlement per accept, none twice');
  });
}
