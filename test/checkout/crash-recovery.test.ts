/**
 * A crash between journal and broadcast loses nothing. Real processes: the standalone devnet,
 * and the market (`serve`, CHAIN=bitcoin-core through the production adapters) whose Bitcoin
 * RPC goes through a proxy here that can hold `sendrawtransaction`. The market journals a
 * checkout, its broadcast hangs at the proxy, the market is killed with SIGKILL; the devnet
 * never saw the bytes. The restarted market's recovery relays them and the sale completes.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeWallet } from '../helpers/wallets.js';
import { call, crashRig, until, type CrashRig, type Json } from '../helpers/crash.js';

let rig: CrashRig | undefined;
after(async () => rig?.close());

void test('killed between journal and broadcast: the restarted market relays the journaled checkout and the sale completes', { timeout: 180_000 }, async () => {
  rig = await crashRig('crash');
  const { proxy, rpc, mine } = rig;
  let market = await rig.market();

  // The seller's unit: issued, attached to a 330-sat output outside the market, confirmed, listed (reuse).
  const seller = makeWallet('p2wpkh', 'crash-seller');
  const { listingId, asset } = await rig.listedUnit(market, seller, 25_000);

  // The buyer quotes and signs; delivery goes to a legacy address.
  const buyer = makeWallet('p2wpkh', 'crash-buyer');
  const delivery = makeWallet('p2pkh', 'crash-delivery');
  const { q, token: buyerToken, signed } = await rig.signedQuote(market, listingId, buyer, delivery);

  // Completion journals, then its broadcast hangs at the proxy; the market dies there.
  proxy.state.hold = true;
  const pending = call(market.url, 'POST', `/v1/checkout/quotes/${q.id}/complete`, { psbt_hex: signed }, buyerToken).catch(() => undefined);
  await until('the broadcast to reach the node', async () => (proxy.state.heldCalls > 0 ? true : undefined));
  const journaled = await call(market.url, 'GET', `/v1/checkout/quotes/${q.id}`, undefined, buyerToken);
  assert.equal(journaled.body.result.status, 'broadcasting', JSON.stringify(journaled.body));
  await market.kill('SIGKILL');
  await pending;
  const mempool = (await rpc('getrawmempool')) as string[];
  assert.ok(!mempool.includes(q.expected_txid as string), 'the node never saw the checkout before the crash');
  proxy.state.hold = false;

  // Restarted on the same store: recovery relays the journaled bytes, the block confirms them.
  market = await rig.market();
  await until('recovery to relay the checkout', async () => ((await rig!.mempool()).includes(q.expected_txid as string) ? true : undefined));
  const relayed = await call(market.url, 'GET', `/v1/checkout/quotes/${q.id}`, undefined, buyerToken);
  assert.equal(relayed.body.result.status, 'broadcast', JSON.stringify(relayed.body));
  await mine();
  const done = await rig.quoteWhen(market, q.id as string, buyerToken, 'the market to see the confirmation', (r) => r.status === 'confirmed');
  assert.equal(done.txid, q.expected_txid);

  const balances = await call(rig.devnet.url, 'GET', `/devnet/counterparty/v2/addresses/${delivery.address}/balances`);
  assert.deepEqual(
    (balances.body.result as Json[]).filter((b) => b.asset === asset).map((b) => [b.quantity, b.utxo ?? null]),
    [[1, null]],
    'the unit was detached to the delivery address',
  );
  const fills = await call(market.url, 'GET', `/v1/fills?address=${delivery.address}&role=buyer`);
  assert.deepEqual(
    (fills.body.result as Json[]).map((f) => [f.txid, f.ref_id, f.buyer, f.price_sats, f.confirmed_at !== null]),
    [[q.expected_txid, listingId, delivery.address, 25_000, true]],
  );
  assert.equal((await rig.salesOf(market, q.expected_txid as string)).length, 1, 'one sale, not two');
});
