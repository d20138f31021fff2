/**
 * Counterparty Core answers as "ready" while it is one block behind Bitcoin Core
 * (X-COUNTERPARTY-READY: counterparty height >= bitcoin height - 1), and a UTXO created in the
 * block it has not parsed yet has no balance there. A buyer coin from that block must not count
 * as asset-free: spending it in a checkout would detach or move whatever it really carries.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { assetCarryingCoin, newBuyer, quote } from '../helpers/checkout.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import type { Chain, CounterpartyBackend } from '../../src/chain/ports.js';

/** While `on`, the Counterparty port has not parsed Bitcoin's newest block (still "ready"). */
const lag = { on: false };

function lagging(chain: Chain): Chain {
  const cp = chain.counterparty;
  const newest = async () => {
    const tip = await chain.bitcoin.getTip();
    const block = await chain.bitcoin.getBlock(tip.hash);
    return { height: tip.height, txids: new Set(block!.txs.map((t) => t.txid)) };
  };
  const counterparty: CounterpartyBackend = Object.create(cp, {
    getStatus: {
      value: async () => {
        const s = await cp.getStatus();
        return lag.on ? { ...s, counterparty_height: s.bitcoin_height - 1, ready: true } : s;
      },
    },
    getUtxosWithBalances: {
      value: async (utxos: string[]) => {
        const found = await cp.getUtxosWithBalances(utxos);
        if (!lag.on) return found;
        const { txids } = await newest();
        return new Set([...found].filter((u) => !txids.has(u.split(':')[0]!)));
      },
    },
  });
  return { bitcoin: chain.bitcoin, counterparty, utxos: chain.utxos };
}

let m: Market;
before(async () => {
  m = await openMarket({}, { wrapChain: lagging });
});
after(async () => m.close());

void test('a buyer coin confirmed in a block Counterparty has not parsed is not asset-free BTC yet', async () => {
  const seller = await newSeller(m, 'p2wpkh', 'lag');
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'lag', [10_000]);
  // The buyer's biggest coin carries an attached unit, confirmed in the newest block.
  const { txid: big } = await assetCarryingCoin(m, buyer.w);

  lag.on = true;
  try {
    assert.equal((await m.ctx.chain.counterparty.getUtxosWithBalances([`${big}:0`])).size, 0, 'the lagging port does not know the balance yet');
    const r = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
    const spent = r.status === 200 ? Transaction.fromPSBT(hex.decode(r.body.result.psbt_hex), READ_TX_OPTS) : null;
    const inputs = spent ? Array.from({ length: spent.inputsLength }, (_, i) => `${hex.encode(spent.getInput(i).txid!)}:${spent.getInput(i).index}`) : [];
    assert.ok(!inputs.includes(`${big}:0`), 'the coin carrying a unit is never offered for signing');
    assert.deepEqual([r.status, r.body.code, r.body.have_sats], [422, 'insufficient_funds', 10_000], JSON.stringify(r.body));
  } finally {
    lag.on = false;
  }
  // Once Counterparty has parsed the block it knows the balance: still never spent.
  const after = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
  assert.deepEqual([after.status, after.body.code, after.body.have_sats], [422, 'insufficient_funds', 10_000]);
});
