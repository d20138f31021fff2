/**
 * The market with UTXO_SOURCE=bitcoin-core through the production adapter: its wallet coins come
 * from the real BitcoinCoreUtxoSource over the devnet's JSON-RPC face (`scantxoutset`, then
 * `gettxout`), while Counterparty answers `electrs_not_configured`; a checkout quote and offer
 * funding compose from Bitcoin Core's coins, through the front door.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { openMarket } from '../helpers/market.js';
import { listUnit, newSeller } from '../helpers/listing.js';
import { newBuyer, quote } from '../helpers/checkout.js';
import { BitcoinCoreUtxoSource } from '../../src/chain/bitcoin-core/index.js';
import { registerDevnetProtocols } from '../../src/chain/devnet/http/index.js';
import type { Devnet } from '../../src/chain/devnet/index.js';
import type { Chain, UtxoSource } from '../../src/chain/ports.js';

const closers: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

test('UTXO_SOURCE=bitcoin-core over scantxoutset, Counterparty without Electrs: checkout and offer funding compose from Bitcoin Core’s coins', async () => {
  let utxos: UtxoSource | null = null;
  const m = await openMarket({ UTXO_SOURCE: 'bitcoin-core' }, { wrapChain: (c: Chain) => ({ bitcoin: c.bitcoin, counterparty: c.counterparty, get utxos() { return utxos ?? c.utxos; } }) });
  closers.push(() => m.close());
  const devnet = m.devnet as unknown as Devnet;
  const app = Fastify({ logger: false });
  await registerDevnetProtocols(app, devnet, {});
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  const real = new BitcoinCoreUtxoSource({ url: `http://any:thing@127.0.0.1:${(app.server.address() as AddressInfo).port}/devnet/rpc`, cacheMs: 0 });
  let scans = 0;
  utxos = { kind: real.kind, seesMempool: real.seesMempool, getAddressUtxos: (a) => (scans++, real.getAddressUtxos(a)), probe: () => real.probe() } as UtxoSource;

  const seller = await newSeller(m, 'p2wpkh', 'core-src-seller');
  const l = await listUnit(m, seller, 20_000);
  const buyer = await newBuyer(m, 'p2wpkh', 'core-src-buyer', [150_000]);
  await m.sync();
  devnet.counterpartyFault = 'electrs_not_configured';
  try {
    const before = scans;
    const q = await quote(m, buyer, { lines: [{ listing_id: l.id }], fee_rate: 1 });
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const f = await m.call('POST', '/v1/offer-funding', buyer.token, { price_sats: 20_000, slots: 2, fee_rate: 2 });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    assert.ok(scans >= before + 2, 'both composed from the scan');
  } finally {
    devnet.counterpartyFault = 'none';
  }
});
