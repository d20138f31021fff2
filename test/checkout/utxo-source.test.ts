/**
 * No hidden Electrs dependency: a market whose Counterparty Core has no Electrs (the devnet's
 * `electrs_not_configured` fault, Core's 400 `Electrs server not configured`) answers a checkout
 * quote 503 `upstream_unavailable` with `retry_after_seconds` when it reads coins through
 * Counterparty (UTXO_SOURCE=counterparty; before: a 400 taken for our own bad request, a 500), and
 * quotes from Bitcoin Core's own coins with UTXO_SOURCE=bitcoin-core; `/readyz` names the source.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { openMarket, type Market } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { newBuyer, quote } from '../helpers/checkout.js';
import type { Devnet } from '../../src/chain/devnet/index.js';

const markets: Market[] = [];
after(async () => {
  for (const m of markets) await m.close();
});

async function market(source: 'counterparty' | 'bitcoin-core') {
  const m = await openMarket({ UTXO_SOURCE: source });
  markets.push(m);
  const seller = await newSeller(m, 'p2wpkh', `utxo-src-seller-${source}`);
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', `utxo-src-buyer-${source}`);
  return { m, l, buyer, devnet: m.devnet as unknown as Devnet };
}

test('UTXO_SOURCE=counterparty on a Counterparty Core without Electrs: 503 upstream_unavailable, retry_after_seconds, /readyz says so', async () => {
  const { m, l, buyer, devnet } = await market('counterparty');
  devnet.counterpartyFault = 'electrs_not_configured';
  try {
    const r = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
    assert.deepEqual([r.status, r.body.code, r.body.retryable, r.body.retry_after_seconds], [503, 'upstream_unavailable', true, 60], JSON.stringify(r.body));
    assert.equal(r.headers['retry-after'], '60');
    const ready = await m.call('GET', '/readyz', null);
    assert.equal(ready.status, 503);
    assert.equal(ready.body.checks.utxos.ok, false);
    assert.match(ready.body.checks.utxos.detail, /Electrs server not configured/);
  } finally {
    devnet.counterpartyFault = 'none';
  }
  assert.equal((await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 })).status, 200);
});

test('UTXO_SOURCE=bitcoin-core: the same node without Electrs quotes from Bitcoin Core’s coins', async () => {
  const { m, l, buyer, devnet } = await market('bitcoin-core');
  devnet.counterpartyFault = 'electrs_not_configured';
  try {
    const r = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(m.ctx.chain.utxos.seesMempool, false);
    const ready = await m.call('GET', '/readyz', null);
    assert.match(ready.body.result?.utxos?.detail ?? ready.body.checks?.utxos?.detail, /scantxoutset/);
  } finally {
    devnet.counterpartyFault = 'none';
  }
});
