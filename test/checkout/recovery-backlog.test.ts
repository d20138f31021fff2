/**
 * Recovery reads live settlements a page at a time: a journaled checkout that never reached the
 * network (502 broadcast_unknown) must be relayed even when more relayed settlements than one
 * page holds are still waiting for a block (a fee spike), or its listing stays reserved for good.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { complete, listingRow, newBuyer, quoteOk, readOp, signQuote } from '../helpers/checkout.js';
import { UpstreamUnavailable } from '../../src/chain/ports.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

async function bought(label: string, broadcast: 'ok' | 'unknown') {
  const seller = await newSeller(m, 'p2wpkh', label);
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', label);
  const q = await quoteOk(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 2 });
  const bitcoin = m.devnet.bitcoin;
  const original = bitcoin.broadcast.bind(bitcoin);
  if (broadcast === 'unknown') {
    bitcoin.broadcast = async () => {
      bitcoin.broadcast = original;
      throw new UpstreamUnavailable('bitcoin', 'ETIMEDOUT');
    };
  }
  const r = await complete(m, buyer, q.id, signQuote(q, buyer.w));
  assert.equal(r.status, broadcast === 'ok' ? 200 : 502, JSON.stringify(r.body));
  m.clock.advance(1_000); // distinct creation times: the backlog is older than the journaled one
  return { l, buyer, q };
}

void test('a journaled checkout behind a full page of relayed ones is still relayed by recovery', async () => {
  await bought('backlog-1', 'ok');
  await bought('backlog-2', 'ok');
  const { l, buyer, q } = await bought('backlog-stuck', 'unknown');
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'broadcasting');

  const r = await m.ctx.journal.recover(2); // a page holds two: both relayed ones are older
  assert.equal(r.relayed, 1, JSON.stringify(r));
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'broadcast');
  assert.ok(await m.ctx.chain.bitcoin.getMempoolEntry(q.expected_txid));
  await m.mine();
  await m.sync();
  assert.equal((await readOp(m, buyer, q.id)).body.result.status, 'confirmed');
  assert.equal((await listingRow(m, l.id)).state, 'sold');
});
