/**
 * A wallet that knows its coins depends on no UTXO source: checkout quotes and offer funding take
 * `funding` outpoints, read through Bitcoin Core (`gettxout`) and Counterparty's balance check, so
 * they compose on a Counterparty Core without Electrs under either UTXO_SOURCE (before: a quote had
 * no `funding`, and named offer funding was looked up in the UTXO source, answering 503). A named
 * coin that is spent, foreign, asset-carrying or claimed gets the spec's envelope with its field.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { assetCarryingCoin, newBuyer, quote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import type { Devnet } from '../../src/chain/devnet/index.js';

const markets: Market[] = [];
after(async () => {
  for (const m of markets) await m.close();
});

const inputs = (psbtHex: string) => {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  return Array.from({ length: tx.inputsLength }, (_, i) => `${hex.encode(tx.getInput(i).txid!)}:${tx.getInput(i).index}`);
};

for (const source of ['counterparty', 'bitcoin-core'] as const) {
  test(`UTXO_SOURCE=${source}, Counterparty without Electrs: named coins fund a checkout and offer slots`, async () => {
    const m = await openMarket({ UTXO_SOURCE: source });
    markets.push(m);
    const devnet = m.devnet as unknown as Devnet;
    const seller = await newSeller(m, 'p2wpkh', `named-seller-${source}`);
    const l = await listUnit(m, seller, 20_000);
    const buyer = await newBuyer(m, 'p2wpkh', `named-buyer-${source}`, [150_000]);
    const coin = await m.fund(buyer.w, 120_000);
    const other = await newBuyer(m, 'p2wpkh', `named-other-${source}`);
    const foreign = await m.fund(other.w, 90_000);
    const carrying = await assetCarryingCoin(m, buyer.w);
    await m.sync();
    devnet.counterpartyFault = 'electrs_not_configured';
    try {
      const fund = [{ txid: coin.txid, vout: coin.vout }];
      const q = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1, funding: fund });
      assert.equal(q.status, 200, JSON.stringify(q.body));
      assert.equal(inputs(q.body.result.psbt_hex)[0], `${coin.txid}:${coin.vout}`);
      assert.deepEqual(q.body.result.ends_offers, []);

      const f = await m.call('POST', '/v1/offer-funding', buyer.token, { price_sats: 20_000, slots: 2, fee_rate: 2, funding: fund });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      assert.deepEqual(inputs(f.body.result.psbt_hex), [`${coin.txid}:${coin.vout}`]);

      // Without named coins the same market needs its UTXO source.
      const unnamed = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
      assert.equal(unnamed.status, source === 'counterparty' ? 503 : 200, JSON.stringify(unnamed.body));

      const bad = async (funding: unknown, status: number, code: string) => {
        for (const r of [
          await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1, funding }),
          await m.call('POST', '/v1/offer-funding', buyer.token, { price_sats: 20_000, slots: 1, fee_rate: 2, funding }),
        ]) {
          assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(r.body));
          assert.match(String(r.body.field), /^body\.funding(\[\d\])?$/);
        }
      };
      await bad([{ txid: foreign.txid, vout: foreign.vout }], 400, 'invalid_request');
      await bad([{ txid: 'ab'.repeat(32), vout: 0 }], 409, 'state_changed');
      await bad([{ txid: carrying.txid, vout: 0 }], 400, 'invalid_request');
      await bad([...fund, ...fund], 400, 'invalid_request');
    } finally {
      devnet.counterpartyFault = 'none';
    }
  });
}
