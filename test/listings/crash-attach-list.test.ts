/**
 * Kill -9 during attach-and-list between its two journal rows (the attach settlement written, the
 * listing not yet; real processes: test/helpers/crash.ts). The transaction dies whole: no
 * settlement, no claim, no listing, nothing broadcast. After restart the same signed attach and
 * listing halves submit as if for the first time, and the listing goes live once the attach
 * confirms: one attach, one listing.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { SigHash } from '@scure/btc-signer';
import { makeWallet } from '../helpers/wallets.js';
import { signPsbt } from '../helpers/market.js';
import { call, crashRig, until, type CrashRig } from '../helpers/crash.js';

let rig: CrashRig | undefined;
after(async () => rig?.close());

void test('killed between the attach settlement and the listing row: nothing written or broadcast; after restart the same halves list the unit once', { timeout: 150_000 }, async () => {
  rig = await crashRig('attach');
  let market = await rig.market('attach-list-between-rows');
  const seller = makeWallet('p2wpkh', 'attach-seller');
  const issued = await rig.control('assets', { issuer: seller.address, quantity_raw: '1', divisible: false });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  const asset = issued.body.result.asset as string;
  await rig.coin(seller, 50_000);
  const token = await rig.signIn(market, seller);
  const d = await until('the attach preflight', async () => {
    const r = await call(market.url, 'POST', '/v1/listing-preflights', { seller: seller.address, asset, quantity_raw: '1', price_sats: 26_000, idempotency_key: 'crash-attach-1' }, token);
    return r.status === 200 ? (r.body.result as Record<string, any>) : undefined;
  });
  const body = {
    attach_psbt_hex: signPsbt(d.attach.psbt_hex as string, seller, [0], SigHash.ALL),
    listing_psbt_hex: signPsbt(d.listing.psbt_hex as string, seller, [0], SigHash.SINGLE_ANYONECANPAY),
    expires_at: Math.floor(Date.now() / 1000) + 86_400,
  };
  const broadcasts = rig.proxy.state.broadcasts;
  const r = await call(market.url, 'POST', `/v1/listing-preflights/${d.id}/attach-and-list`, body, token).catch((e: unknown) => e);
  assert.ok(r instanceof Error, 'the market died answering');
  await rig.died(market, 'between the journal rows');
  assert.equal(rig.proxy.state.broadcasts, broadcasts, 'nothing was broadcast');
  assert.ok(!(await rig.mempool()).includes(d.expected_txid as string));

  market = await rig.market();
  const draft = await call(market.url, 'GET', `/v1/listing-preflights/${d.id}`, undefined, token);
  assert.equal(draft.status, 200, JSON.stringify(draft.body));
  assert.equal(draft.body.result.status, 'awaiting_attach_signature', 'the draft never moved');
  assert.equal(draft.body.result.listing_id ?? null, null, 'no listing was written');

  const listed = await call(market.url, 'POST', `/v1/listing-preflights/${d.id}/attach-and-list`, body, token);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const listingId = listed.body.result.listing_id as string;
  assert.ok(listingId, JSON.stringify(listed.body.result));
  assert.ok((await rig.mempool()).includes(d.expected_txid as string), 'the attach was relayed');
  const again = await call(market.url, 'POST', `/v1/listing-preflights/${d.id}/attach-and-list`, body, token);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.result.listing_id, listingId, 'a repeat names the same listing');

  // Confirmed, the listing goes live: a buyer's quote over it (only an active listing quotes) is the proof.
  await rig.mine();
  const buyer = makeWallet('p2wpkh', 'attach-buyer');
  const { q } = await rig.signedQuote(market, listingId, buyer, buyer);
  assert.equal(q.expires_at > Math.floor(Date.now() / 1000), true);
});
