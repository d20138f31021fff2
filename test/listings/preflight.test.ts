/** POST /v1/listing-preflights and GET /v1/listing-preflights/{id}: both modes, idempotency, every refusal. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { decodeMessageOutput } from '../../src/counterparty/message.js';
import { decodeAttachPayload } from '../../src/counterparty/attach-detach.js';
import { makeWallet, type TestWallet } from '../helpers/wallets.js';
import { openMarket, signPsbt, type Market } from '../helpers/market.js';
import type { CpBalance } from '../../src/chain/ports.js';

let m: Market;
before(async () => {
  m = await openMarket();
});
after(async () => m.close());

const psbt = (h: string) => Transaction.fromPSBT(hex.decode(h), READ_TX_OPTS);
let n = 0;
/** A funded seller holding `units` of a fresh asset, signed in. */
async function seller(family: 'p2wpkh' | 'p2tr' = 'p2wpkh', units = '1', sats = 100_000) {
  const w = makeWallet(family, `pf-seller-${++n}`);
  if (sats) await m.fund(w, sats);
  const asset = await m.issue(w, units);
  return { w, asset, token: await m.signIn(w) };
}
const preflight = (token: string | null, body: Record<string, unknown>) => m.call('POST', '/v1/listing-preflights', token, body);
const base = (w: TestWallet, asset: string, extra: Record<string, unknown> = {}) => ({
  seller: w.address,
  asset,
  quantity_raw: '1',
  idempotency_key: `k-${++n}`,
  ...extra,
});

void test('mode=attach with a SegWit source: the attach layout, expected txid, listing template and fees', async () => {
  const s = await seller();
  const r = await preflight(s.token, base(s.w, s.asset, { price_sats: 60_000 }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const d = r.body.result;
  assert.match(d.id, /^pf_/);
  assert.match(d.operation_id, /^op_/);
  assert.equal(d.protocol_version, 'counterparty_attach_listing_v1');
  assert.equal(d.mode, 'attach');
  assert.equal(d.status, 'awaiting_attach_signature');
  assert.equal(d.next_action, 'sign_attach');
  assert.equal(d.asset_source, s.w.address);
  assert.equal(d.expires_at - d.created_at, 900);

  const tx = psbt(d.attach.psbt_hex);
  assert.equal(tx.outputsLength, 3);
  assert.deepEqual(d.attach.signers, [{ address: s.w.address, inputs_to_sign: [0], sighash: 'ALL' }]);
  assert.equal(tx.getOutput(0).amount, 330n);
  assert.equal(hex.encode(tx.getOutput(0).script!), hex.encode(s.w.script));
  const msg = decodeMessageOutput(tx.getOutput(1).script!, hex.encode(tx.getInput(0).txid!));
  assert.equal(msg?.typeId, 101);
  const payload = decodeAttachPayload(msg!.payload);
  assert.deepEqual(payload, { asset: s.asset, quantity: 1n, destinationVout: 0n });
  const inValue = tx.getInput(0).witnessUtxo!.amount;
  const change = tx.getOutput(2).amount!;
  assert.equal(Number(inValue - 330n - change), d.fees.network.amount_sats);
  assert.equal(d.fee_rate, 3, 'the devnet half-hour estimate');
  const signed = psbt(signPsbt(d.attach.psbt_hex, s.w, [0], SigHash.ALL));
  signed.finalize();
  assert.ok(d.fees.network.amount_sats >= Math.ceil(signed.vsize * 3), 'the estimate covers the real size');
  assert.ok(d.fees.network.amount_sats <= Math.ceil(signed.vsize * 3) + 3, 'and is close to it');

  assert.equal(d.expected_txid, tx.id);
  assert.deepEqual(d.asset_utxo, { txid: tx.id, vout: 0, utxo_value_sats: 330 });
  assert.deepEqual(d.fees.protocol, { asset: 'XCP', amount_raw: '0', actual_amount_raw: null, observed_block: null, variable_until_confirmed: true, charged_at: null });
  assert.deepEqual(d.fees.platform, { asset: 'BTC', amount_sats: 1_200 }, '2% of 60,000');
  const l = psbt(d.listing.psbt_hex);
  assert.equal(d.listing.sighash, 'SINGLE|ANYONECANPAY');
  assert.deepEqual(d.listing.inputs_to_sign, [0]);
  assert.equal(hex.encode(l.getInput(0).txid!), tx.id);
  assert.equal(l.getOutput(0).amount, 60_000n);

  const g = await m.call('GET', `/v1/listing-preflights/${d.id}`, s.token);
  assert.equal(g.status, 200);
  assert.deepEqual(g.body.result, d);
  assert.equal(g.headers['cache-control'], 'no-store');
});

void test('a P2PKH source: input with its previous transaction, txid unknown until signed, no template yet', async () => {
  const s = await seller();
  const source = makeWallet('p2pkh', `pf-source-${++n}`);
  await m.fund(source, 50_000);
  const asset = await m.issue(source, '3');
  const r = await preflight(s.token, base(s.w, asset, { asset_source: source.address, price_sats: 10_000 }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const d = r.body.result;
  assert.equal(d.expected_txid, null);
  assert.equal(d.asset_utxo, null);
  assert.equal(d.listing, undefined);
  assert.deepEqual(d.attach.signers, [{ address: source.address, inputs_to_sign: [0], sighash: 'ALL' }]);
  const tx = psbt(d.attach.psbt_hex);
  assert.ok(tx.getInput(0).nonWitnessUtxo, 'P2PKH inputs carry nonWitnessUtxo');
  assert.equal(hex.encode(tx.getOutput(0).script!), hex.encode(s.w.script), 'the unit goes to the SegWit seller');
  assert.equal(hex.encode(tx.getOutput(2).script!), hex.encode(source.script), 'change to the source');
});

void test('mode=reuse: defaults from an attached unit the seller holds; starts ready', async () => {
  const s = await seller('p2wpkh', '2');
  const at = await m.attachDirect(s.w, s.asset, '1');
  const r = await preflight(s.token, base(s.w, s.asset));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const d = r.body.result;
  assert.equal(d.mode, 'reuse');
  assert.equal(d.status, 'ready');
  assert.equal(d.next_action, 'set_price');
  assert.deepEqual(d.asset_utxo, { txid: at.txid, vout: 0, utxo_value_sats: 330 });
  assert.equal(d.attach, undefined);
  assert.deepEqual(d.fees.network, { asset: 'BTC', amount_sats: 0 });
  assert.equal(d.fees.protocol.variable_until_confirmed, false);

  const explicit = await preflight(s.token, base(s.w, s.asset, { mode: 'reuse', asset_utxo: at, price_sats: 7_000 }));
  assert.equal(explicit.status, 200);
  assert.equal(explicit.body.result.next_action, 'sign_listing');
  assert.equal(psbt(explicit.body.result.listing.psbt_hex).getOutput(0).amount, 7_000n);

  const wrongQty = await preflight(s.token, base(s.w, s.asset, { mode: 'reuse', asset_utxo: at, quantity_raw: '2' }));
  assert.equal(wrongQty.status, 422);
  assert.equal(wrongQty.body.code, 'insufficient_asset_balance');
  assert.equal(wrongQty.body.purpose, 'reuse');
  assert.equal(wrongQty.body.held_raw, '1');

  const other = await seller();
  const foreign = await preflight(other.token, base(other.w, s.asset, { mode: 'reuse', asset_utxo: at }));
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body.code, 'invalid_request');

  const noAsset = await preflight(s.token, base(s.w, s.asset, { mode: 'reuse', asset_utxo: { txid: at.txid, vout: 2 } }));
  assert.equal(noAsset.body.code, 'insufficient_asset_balance', 'the change output holds nothing');
});

void test('idempotency: same key and body is the same draft; another body is 409 state_changed', async () => {
  const s = await seller();
  const body = base(s.w, s.asset, { price_sats: 9_000 });
  const a = await preflight(s.token, body);
  const reordered = Object.fromEntries(Object.entries(body).reverse());
  const b = await preflight(s.token, reordered);
  assert.equal(b.status, 200);
  assert.equal(b.body.result.id, a.body.result.id);
  const c = await preflight(s.token, { ...body, price_sats: 9_001 });
  assert.equal(c.status, 409);
  assert.equal(c.body.code, 'state_changed');
  assert.equal(c.body.idempotency_key, body.idempotency_key);
  assert.equal(c.body.preflight_id, a.body.result.id);
  const count = await m.ctx.store.db.selectFrom('listing_drafts').select((eb) => eb.fn.countAll().as('n')).where('seller', '=', s.w.address).executeTakeFirst();
  assert.equal(Number(count?.n), 1, 'nothing new was stored');
});

void test('balances: what the source does not hold, and what open drafts already committed', async () => {
  const s = await seller();
  const tooMany = await preflight(s.token, base(s.w, s.asset, { quantity_raw: '2' }));
  assert.equal(tooMany.status, 422);
  assert.deepEqual(
    { code: tooMany.body.code, asset: tooMany.body.asset, held_raw: tooMany.body.held_raw, committed_raw: tooMany.body.committed_raw, needed_raw: tooMany.body.needed_raw, purpose: tooMany.body.purpose },
    { code: 'insufficient_asset_balance', asset: s.asset, held_raw: '1', committed_raw: '0', needed_raw: '2', purpose: 'attach' },
  );
  const first = await preflight(s.token, base(s.w, s.asset));
  assert.equal(first.status, 200);
  const second = await preflight(s.token, base(s.w, s.asset));
  assert.equal(second.status, 422);
  assert.equal(second.body.committed_raw, '1');
  // Once the first template expires it no longer commits anything.
  m.clock.advance(16 * 60_000);
  const expired = await m.call('GET', `/v1/listing-preflights/${first.body.result.id}`, s.token);
  assert.equal(expired.body.result.status, 'expired');
  assert.equal(expired.body.result.next_action, null);
  assert.equal(expired.body.result.attach, undefined);
  const third = await preflight(s.token, base(s.w, s.asset));
  assert.equal(third.status, 200, JSON.stringify(third.body));
});

void test('a confirmed attach stays committed until Counterparty has parsed its block (X-COUNTERPARTY-READY allows one block of lag)', async () => {
  // Counterparty's API answers "ready" while one block behind Bitcoin, serving balances from
  // before that block. Our attach is then confirmed on Bitcoin but not debited yet.
  const lag = { on: false, height: 0, balances: new Map<string, CpBalance[]>() };
  const lm = await openMarket({}, {
    wrapChain: (chain) => ({
      bitcoin: chain.bitcoin,
      utxos: chain.utxos,
      counterparty: new Proxy(chain.counterparty, {
        get(target, prop, receiver) {
          if (prop === 'getAddressBalances') {
            return async (address: string) => (lag.on && lag.balances.has(address) ? lag.balances.get(address)! : target.getAddressBalances(address));
          }
          if (prop === 'getStatus') {
            return async () => {
              const st = await target.getStatus();
              return lag.on ? { ...st, counterparty_height: lag.height } : st;
            };
          }
          const v = Reflect.get(target, prop, receiver) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      }),
    }),
  });
  try {
    const w = makeWallet('p2wpkh', 'pf-lag-seller');
    await lm.fund(w, 100_000);
    const asset = await lm.issue(w, '1');
    const token = await lm.signIn(w);
    const a = (await lm.call('POST', '/v1/listing-preflights', token, base(w, asset))).body.result;
    const sa = await lm.call('POST', `/v1/listing-preflights/${a.id}/attach`, token, { psbt_hex: signPsbt(a.attach.psbt_hex, w, [0], SigHash.ALL) });
    assert.equal(sa.status, 200, JSON.stringify(sa.body));
    lag.balances.set(w.address, await lm.devnet.counterparty.getAddressBalances(w.address));
    lag.height = (await lm.devnet.bitcoin.getTip()).height;
    lag.on = true;
    await lm.mine();
    assert.equal((await lm.devnet.bitcoin.getTransaction(a.expected_txid))?.confirmations, 1);
    const twice = await lm.call('POST', '/v1/listing-preflights', token, base(w, asset));
    assert.equal(twice.status, 422, `the unit would be promised to a second attach, which Counterparty then refuses (its BTC fee lost): ${JSON.stringify(twice.body)}`);
    assert.deepEqual([twice.body.code, twice.body.held_raw, twice.body.committed_raw], ['insufficient_asset_balance', '1', '1']);
    lag.on = false;
    const caughtUp = await lm.call('POST', '/v1/listing-preflights', token, base(w, asset, { mode: 'attach' }));
    assert.equal(caughtUp.status, 422, JSON.stringify(caughtUp.body));
    assert.deepEqual([caughtUp.body.held_raw, caughtUp.body.committed_raw], ['0', '0'], 'parsed: debited, no longer counted as committed');
  } finally {
    await lm.close();
  }
});

void test("a stranger's unsigned preflight naming your address as asset_source does not commit your balance or your coins", async () => {
  // asset_source needs no session (the source signs its own attach inputs), so any session can
  // name any address. Counted as committed, such drafts let anyone lock any seller out of
  // preparing a listing, 15 minutes per draft, again and again.
  const victim = await seller();
  const stranger = makeWallet('p2wpkh', `pf-stranger-${++n}`);
  const strangerToken = await m.signIn(stranger);
  const grief = await preflight(strangerToken, { seller: stranger.address, asset_source: victim.w.address, asset: victim.asset, quantity_raw: '1', idempotency_key: `grief-${++n}` });
  assert.equal(grief.status, 200, JSON.stringify(grief.body));
  const griefCoins = psbt(grief.body.result.attach.psbt_hex);
  const own = await preflight(victim.token, base(victim.w, victim.asset));
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.deepEqual(psbt(own.body.result.attach.psbt_hex).getInput(0).txid, griefCoins.getInput(0).txid, 'the stranger reserved none of the victim\'s coins');
  // The victim's own open draft still commits the unit against a second one of its own.
  const second = await preflight(victim.token, base(victim.w, victim.asset));
  assert.equal(second.status, 422);
  assert.deepEqual([second.body.code, second.body.committed_raw], ['insufficient_asset_balance', '1']);
  // The victim signs its attach: in flight, it commits against every seller, the stranger too.
  const sent = await m.call('POST', `/v1/listing-preflights/${own.body.result.id}/attach`, victim.token, { psbt_hex: signPsbt(own.body.result.attach.psbt_hex, victim.w, [0], SigHash.ALL) });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  assert.equal((await m.call('DELETE', `/v1/listing-preflights/${grief.body.result.id}`, strangerToken)).status, 200);
  const late = await preflight(strangerToken, { seller: stranger.address, asset_source: victim.w.address, asset: victim.asset, quantity_raw: '1', idempotency_key: `late-${++n}` });
  assert.equal(late.status, 422);
  assert.deepEqual([late.body.code, late.body.committed_raw], ['insufficient_asset_balance', '1']);
});

void test('the XCP attach fee must be covered too (purpose attach_fee)', async () => {
  const fm = await openMarket({ DEVNET_ATTACH_FEE_RAW: '50000000' });
  try {
    const w = makeWallet('p2wpkh', 'pf-fee-seller');
    await fm.fund(w, 100_000);
    const asset = await fm.issue(w, '1');
    const token = await fm.signIn(w);
    const r = await fm.call('POST', '/v1/listing-preflights', token, base(w, asset));
    assert.equal(r.status, 422);
    assert.deepEqual([r.body.code, r.body.asset, r.body.held_raw, r.body.needed_raw, r.body.purpose], ['insufficient_asset_balance', 'XCP', '0', '50000000', 'attach_fee']);
    await fm.credit(w, 'XCP', '60000000');
    const ok = await fm.call('POST', '/v1/listing-preflights', token, base(w, asset));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.result.fees.protocol.amount_raw, '50000000');
  } finally {
    await fm.close();
  }
});

void test('insufficient_funds: no asset-free BTC, with need, have and shortfall', async () => {
  const s = await seller('p2wpkh', '1', 0);
  const r = await preflight(s.token, base(s.w, s.asset));
  assert.equal(r.status, 422);
  assert.equal(r.body.code, 'insufficient_funds');
  assert.equal(r.body.have_sats, 0);
  assert.ok(r.body.need_sats > 330);
  assert.equal(r.body.shortfall_sats, r.body.need_sats);
  assert.equal(r.body.retryable, undefined);
});

void test('refusals: session, ownership, address roles, price range, asset ids; nothing is stored', async () => {
  const s = await seller();
  const other = await seller();
  const cases: Array<[string | null, Record<string, unknown>, number, string]> = [
    [null, base(s.w, s.asset), 401, 'unauthenticated'],
    [other.token, base(s.w, s.asset), 403, 'forbidden'],
    [s.token, base(s.w, s.asset, { price_sats: 4_999 }), 422, 'price_below_minimum'],
    [s.token, base(s.w, s.asset, { price_sats: 10_000_000_001 }), 422, 'listing_price_above_maximum'],
    [s.token, base(s.w, 'A1', {}), 400, 'invalid_request'],
    [s.token, base(s.w, s.asset, { quantity_raw: '0' }), 400, 'invalid_request'],
    [s.token, base(s.w, s.asset, { fee_rate: 0.01 }), 400, 'invalid_request'],
  ];
  for (const [token, body, status, code] of cases) {
    const r = await preflight(token, body);
    assert.equal(r.status, status, `${code}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, code);
  }
  const low = await preflight(s.token, base(s.w, s.asset, { price_sats: 4_999 }));
  assert.equal(low.body.minimum_price_sats, 5_000);
  const high = await preflight(s.token, base(s.w, s.asset, { price_sats: 10_000_000_001 }));
  assert.equal(high.body.maximum_price_sats, 10_000_000_000);

  const legacy = makeWallet('p2pkh', `pf-legacy-${++n}`);
  const legacyToken = await m.signIn(legacy);
  const asSeller = await preflight(legacyToken, base(legacy, s.asset));
  assert.equal(asSeller.status, 400);
  assert.equal(asSeller.body.code, 'unsupported_address_type');
  const rows = await m.ctx.store.db.selectFrom('listing_drafts').selectAll().where('seller', 'in', [s.w.address, legacy.address]).execute();
  assert.equal(rows.length, 0);
});

void test('GET: a foreign draft and a missing one are the same 404', async () => {
  const s = await seller();
  const other = await seller();
  const r = await preflight(s.token, base(s.w, s.asset));
  const foreign = await m.call('GET', `/v1/listing-preflights/${r.body.result.id}`, other.token);
  const missing = await m.call('GET', '/v1/listing-preflights/pf_000000000000000000000000', other.token);
  assert.equal(foreign.status, 404);
  assert.deepEqual(foreign.body, missing.body);
  assert.equal((await m.call('GET', `/v1/listing-preflights/${r.body.result.id}`, null)).status, 401);
});

void test('P2TR seller and source with BIP-86 internal keys in the templates', async () => {
  const s = await seller('p2tr');
  const r = await preflight(s.token, base(s.w, s.asset, { price_sats: 20_000, seller_tap_internal_key: hex.encode(s.w.xOnly), asset_source_tap_internal_key: hex.encode(s.w.xOnly) }));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(hex.encode(psbt(r.body.result.attach.psbt_hex).getInput(0).tapInternalKey!), hex.encode(s.w.xOnly));
  assert.equal(hex.encode(psbt(r.body.result.listing.psbt_hex).getInput(0).tapInternalKey!), hex.encode(s.w.xOnly));
  const wrong = await preflight(s.token, base(s.w, s.asset, { seller_tap_internal_key: hex.encode(makeWallet('p2tr', 'x').xOnly) }));
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.field, 'body.seller_tap_internal_key');
});
