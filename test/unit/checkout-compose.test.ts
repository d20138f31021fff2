/** The checkout's pure parts: coin selection and fee arithmetic, and where the platform fee goes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { ApiError } from '../../src/http/errors.js';
import { decodeAddress } from '../../src/bitcoin/address.js';
import { estimateSize } from '../../src/bitcoin/vsize.js';
import { detachOutputScript } from '../../src/counterparty/attach-detach.js';
import { devnetFeeAddress, marketFeeAddress, marketFeeScript } from '../../src/trade/fee-address.js';
import { buildCheckoutPsbt, payable, planCheckout, type CheckoutShape } from '../../src/trade/compose.js';
import { makeWallet } from '../helpers/wallets.js';

const buyer = makeWallet('p2wpkh', 'compose-buyer');
const seller = makeWallet('p2tr', 'compose-seller');
const fee = makeWallet('p2wpkh', 'compose-fee');
const delivery = makeWallet('p2pkh', 'compose-delivery');
const txid = (n: number) => n.toString(16).padStart(64, '0');

const shape = (over: Partial<CheckoutShape> = {}): CheckoutShape => ({
  version: 2,
  lockTime: 0,
  buyerScript: buyer.script,
  buyerSpend: 'p2wpkh',
  buyerDust: 294,
  pairs: [{ txid: txid(1), index: 0, sequence: 0xffffffff, prevout: { script: seller.script, amount: 330n }, output: { script: seller.script, amount: 20_000n }, spend: 'p2tr-key-explicit' }],
  delivery: { mode: 'detached', address: delivery.address, script: delivery.script },
  platformFee: { script: fee.script, sats: 546 },
  network: 'regtest',
  ...over,
});

/** The vsize the plan must use: buyer inputs, the seller pair, message, price, fee (and change). */
const vsizeOf = (buyers: number, change: boolean) =>
  estimateSize(
    [...Array(buyers).fill('p2wpkh'), 'p2tr-key-explicit'],
    [detachOutputScript({ input0Txid: txid(9), destination: delivery.address }), seller.script, fee.script, ...(change ? [buyer.script] : [])],
  ).vsize;

void test('payable: prices, platform fee and the attached output, less the units\' own sats', () => {
  assert.equal(payable(shape()), 20_000 + 546 - 330);
  assert.equal(payable(shape({ delivery: { mode: 'attached', address: buyer.address, script: buyer.script } })), 20_000 + 546 + 330 - 330);
  assert.equal(payable(shape({ platformFee: { script: fee.script, sats: 0 } })), 20_000 - 330);
});

void test('plan: change above dust is an output; the fee is vsize × rate; change below dust goes to the fee', () => {
  const s = shape();
  const withChange = planCheckout(s, [{ txid: txid(2), vout: 0, value_sats: 50_000 }], 2);
  assert.ok(!('short' in withChange));
  assert.equal(withChange.network_fee_sats, Math.ceil(vsizeOf(1, true) * 2));
  assert.equal(withChange.change_sats, 50_000 - payable(s) - withChange.network_fee_sats);

  const noChangeFee = Math.ceil(vsizeOf(1, false) * 2);
  const exact = payable(s) + noChangeFee + 100; // 100 sats over: below the 294-sat dust limit
  const dropped = planCheckout(s, [{ txid: txid(3), vout: 0, value_sats: exact }], 2);
  assert.ok(!('short' in dropped));
  assert.deepEqual([dropped.change_sats, dropped.network_fee_sats], [0, noChangeFee + 100]);

  const built = buildCheckoutPsbt(s, dropped);
  assert.deepEqual(built.inputs_to_sign, [0]);
  assert.match(built.expected_txid, /^[0-9a-f]{64}$/);
});

void test('plan: coins are taken in the given order; too little is short with need and have', () => {
  const s = shape();
  const coins = [{ txid: txid(4), vout: 0, value_sats: 15_000 }, { txid: txid(5), vout: 1, value_sats: 15_000 }];
  const two = planCheckout(s, coins, 1);
  assert.ok(!('short' in two));
  assert.deepEqual(two.coins.map((c) => c.txid), [txid(4), txid(5)]);
  assert.deepEqual(buildCheckoutPsbt(s, two).inputs_to_sign, [0, 2], 'the second buyer coin follows the pair');
  const short = planCheckout(s, [coins[0]!], 1);
  assert.ok('short' in short);
  assert.deepEqual([short.have_sats, short.need_sats], [15_000, payable(s) + Math.ceil(vsizeOf(1, false))]);
  const none = planCheckout(s, [], 1);
  assert.ok('short' in none && none.have_sats === 0 && none.need_sats > payable(s));
});

void test('the platform-fee address: configured, derived on the devnet, refused (503) on a real chain without one', () => {
  const devnet = loadConfig({});
  assert.equal(marketFeeAddress(devnet), devnetFeeAddress('regtest'));
  const d = decodeAddress(devnetFeeAddress('regtest'), 'regtest');
  assert.ok(d.ok && d.family === 'p2wpkh');
  assert.equal(marketFeeAddress({ ...devnet, MARKET_FEE_ADDRESS: fee.address }), fee.address);
  assert.deepEqual(marketFeeScript({ ...devnet, MARKET_FEE_ADDRESS: fee.address }), fee.script);
  const real = { ...devnet, CHAIN: 'bitcoin-core' as const, NETWORK: 'mainnet' as const, MARKET_FEE_ADDRESS: undefined };
  assert.throws(() => marketFeeAddress(real), (e: unknown) => e instanceof ApiError && e.code === 'service_unavailable');
  assert.throws(() => marketFeeScript({ ...real, MARKET_FEE_ADDRESS: fee.address }), (e: unknown) => e instanceof ApiError && e.code === 'service_unavailable', 'a regtest address on mainnet');
});
