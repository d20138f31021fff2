import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer';
import { mempoolPolicyOf, isConflictReason } from '../../src/chain/errors.js';
import { opReturnScript } from '../../src/counterparty/script-reader.js';
import { makeWallet } from '../helpers/wallets.js';
import { buildTx, fund, mempoolCoin as unconfirmed, openTestDevnet, rejectionOf, txidOf, type TestDevnet } from '../helpers/devnet.js';

const alice = makeWallet('p2wpkh', 'refuse-alice');
const bob = makeWallet('p2wpkh', 'refuse-bob');
let d: TestDevnet;

before(async () => {
  d = await openTestDevnet();
});
after(() => d.cleanup());

const rejection = (hexTx: string) => rejectionOf(d.devnet, hexTx);

void test('malformed bytes: TX decode failed (-22)', async () => {
  const e = await rejection('00ff');
  assert.equal(e.rpcCode, -22);
  assert.match(e.reason, /^TX decode failed/);
  await assert.rejects(d.devnet.testMempoolAccept(['zz']), /TX decode failed/);
});

void test('a tampered signature: mandatory-script-verify-flag-failed (-26)', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  const good = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 19_000n }]);
  const raw = RawTx.decode(hex.decode(good));
  raw.outputs[0]!.amount = 19_001n;
  const tampered = hex.encode(RawTx.encode(raw));
  const e = await rejection(tampered);
  assert.equal(e.rpcCode, -26);
  // Core 29.2's words: policy's NULLFAIL fails first, the re-run under the mandatory flags alone
  // leaves false on the stack, and that run's ScriptErrorString is the one named.
  const txid = txidOf(tampered);
  assert.equal(e.reason.split(', input')[0], 'mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)');
  assert.match(e.reason, new RegExp(`, input 0 of ${txid} \\(wtxid [0-9a-f]{64}\\), spending ${coin.txid}:${coin.vout}$`));
  assert.equal(mempoolPolicyOf(e.reason), null);
});

void test('script failures name Core\'s ScriptErrorString: a P2TR key-path signature, a P2PKH one', async () => {
  for (const [family, text] of [
    ['p2tr', 'Invalid Schnorr signature'],
    ['p2pkh', 'Script evaluated without error but finished with a false/empty top stack element'],
  ] as const) {
    const w = makeWallet(family, `refuse-${family}`);
    const coin = await fund(d.devnet, w, 20_000);
    const raw = RawTx.decode(hex.decode(buildTx([{ wallet: w, coin }], [{ script: bob.script, amount: 19_000n }])));
    raw.outputs[0]!.amount = 19_001n;
    const e = await rejection(hex.encode(RawTx.encode(raw)));
    assert.equal(e.reason.split(', input')[0], `mandatory-script-verify-flag-failed (${text})`, family);
  }
});

void test('a spent input: bad-txns-inputs-missingorspent (-25), missing-inputs in testmempoolaccept', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  await d.devnet.sendRawTransaction(buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 19_000n }]));
  await d.devnet.mine(1);
  const again = buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: 18_000n }]);
  const e = await rejection(again);
  assert.equal(e.rpcCode, -25);
  assert.equal(e.reason, 'bad-txns-inputs-missingorspent');
  assert.ok(isConflictReason(e.reason));
  const [r] = await d.devnet.testMempoolAccept([again]);
  assert.equal(r?.allowed, false);
  assert.equal((r as { 'reject-reason': string })['reject-reason'], 'missing-inputs');
});

void test('a double spend of a mempool input paying no more: insufficient fee (full-RBF, replacement.test.ts)', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  await d.devnet.sendRawTransaction(buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 19_000n }]));
  const e = await rejection(buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: 19_000n }]));
  assert.match(e.reason, /^insufficient fee, rejecting replacement/);
  assert.ok(isConflictReason(e.reason));
});

void test('dust limits per family: P2PKH 546, P2WPKH 294, P2TR 330 (and P2WSH 330)', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  const families = { p2pkh: 546n, p2wpkh: 294n, p2tr: 330n } as const;
  for (const [family, limit] of Object.entries(families)) {
    const to = makeWallet(family as keyof typeof families, 'dust');
    const at = (v: bigint) => buildTx([{ wallet: alice, coin }], [{ script: to.script, amount: v }, { script: alice.script, amount: 19_000n - v }]);
    const [ok] = await d.devnet.testMempoolAccept([at(limit)]);
    assert.equal(ok?.allowed, true, `${family} at ${limit}`);
    const e = await rejection(at(limit - 1n));
    assert.equal(e.reason, 'dust', family);
    assert.equal(mempoolPolicyOf(e.reason), 'dust');
  }
  const p2wsh = new Uint8Array([0x00, 0x20, ...new Uint8Array(32).fill(7)]);
  const e = await rejection(buildTx([{ wallet: alice, coin }], [{ script: p2wsh, amount: 329n }, { script: alice.script, amount: 18_000n }]));
  assert.equal(e.reason, 'dust');
});

void test('non-standard outputs: scriptpubkey, OP_RETURN over 83 bytes, multi-op-return, version', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  const change = { script: alice.script, amount: 19_000n };
  const cases: Array<[string, string, { version?: number }?]> = [
    [buildTx([{ wallet: alice, coin }], [{ script: new Uint8Array([0x51]), amount: 1_000n }, change]), 'scriptpubkey'],
    [buildTx([{ wallet: alice, coin }], [{ script: opReturnScript(new Uint8Array(81)), amount: 0n }, change]), 'scriptpubkey'],
    [buildTx([{ wallet: alice, coin }], [{ script: opReturnScript(new Uint8Array(1)), amount: 0n }, { script: opReturnScript(new Uint8Array(2)), amount: 0n }, change]), 'multi-op-return'],
    [buildTx([{ wallet: alice, coin }], [change], { version: 4 }), 'version'],
  ];
  for (const [tx, reason] of cases) {
    const e = await rejection(tx);
    assert.equal(e.reason, reason);
    assert.equal(mempoolPolicyOf(e.reason), 'nonstandard', reason);
  }
  const [ok] = await d.devnet.testMempoolAccept([buildTx([{ wallet: alice, coin }], [{ script: opReturnScript(new Uint8Array(80)), amount: 0n }, change])]);
  assert.equal(ok?.allowed, true, 'an 83-byte OP_RETURN is standard');
});

void test('fees: below 0.1 sat/vB (Core 29.1) is min relay fee not met; outputs above inputs is bad-txns-in-belowout', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  const e = await rejection(buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 20_000n }]));
  assert.match(e.reason, /^min relay fee not met, 0 < 1\d$/);
  assert.equal(mempoolPolicyOf(e.reason), 'fee_floor');
  const low = await rejection(buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 19_995n }]));
  assert.match(low.reason, /^min relay fee not met, 5 < /);
  // scure will not sign an overspend; the amount is raised after signing (the amount check comes first).
  const raw = RawTx.decode(hex.decode(buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 19_000n }])));
  raw.outputs[0]!.amount = 20_001n;
  const over = await rejection(hex.encode(RawTx.encode(raw)));
  assert.match(over.reason, /^bad-txns-in-belowout/);
});

void test('a 26th unconfirmed ancestor: too-long-mempool-chain', async () => {
  let coin = await fund(d.devnet, alice, 100_000);
  for (let i = 0; i < 25; i++) {
    const amount = coin.amount - 200n;
    const tx = buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount }]);
    await d.devnet.sendRawTransaction(tx);
    coin = unconfirmed(tx, 0, amount);
  }
  const e = await rejection(buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: coin.amount - 200n }]));
  assert.equal(e.reason, 'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]');
  assert.equal(mempoolPolicyOf(e.reason), 'chain_too_long');
  await d.devnet.mine(1);
  await d.devnet.sendRawTransaction(buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: coin.amount - 200n }]));
});

void test('finality: a future locktime is non-final, an unmet relative lock is non-BIP68-final', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  const tip = (await d.devnet.bitcoin.getTip()).height;
  const locked = buildTx([{ wallet: alice, coin, sequence: 0xfffffffe }], [{ script: bob.script, amount: 19_000n }], { lockTime: tip + 2 });
  assert.equal((await rejection(locked)).reason, 'non-final');
  const relative = buildTx([{ wallet: alice, coin, sequence: 5 }], [{ script: bob.script, amount: 19_000n }]);
  assert.equal((await rejection(relative)).reason, 'non-BIP68-final');
  await d.devnet.mine(4);
  await d.devnet.sendRawTransaction(relative);
});

void test('a transaction already in the chain: -27 from sendrawtransaction', async () => {
  const coin = await fund(d.devnet, alice, 20_000);
  const tx = buildTx([{ wallet: alice, coin }], [{ script: bob.script, amount: 19_000n }]);
  await d.devnet.sendRawTransaction(tx);
  await d.devnet.mine(1);
  const e = await rejection(tx);
  assert.equal(e.rpcCode, -27);
  assert.equal(e.reason, 'Transaction outputs already in utxo set');
});

void test('TRUC: version inheritance, one child, child size, no grandchildren', async () => {
  const coin = await fund(d.devnet, alice, 100_000);
  const v2 = buildTx([{ wallet: alice, coin }], [{ script: alice.script, amount: 50_000n }, { script: alice.script, amount: 49_000n }]);
  await d.devnet.sendRawTransaction(v2);
  const v3child = buildTx([{ wallet: alice, coin: unconfirmed(v2, 0, 50_000n) }], [{ script: bob.script, amount: 49_000n }], { version: 3 });
  const inherit = await rejection(v3child);
  assert.match(inherit.reason, /^TRUC-violation, version=3 tx \w+ \(wtxid=\w+\) cannot spend from non-version=3 tx/);
  assert.equal(mempoolPolicyOf(inherit.reason), 'truc');

  const c2 = await fund(d.devnet, alice, 100_000);
  const parent = buildTx([{ wallet: alice, coin: c2 }], [{ script: alice.script, amount: 50_000n }, { script: alice.script, amount: 49_000n }], { version: 3 });
  await d.devnet.sendRawTransaction(parent);
  const v2child = buildTx([{ wallet: alice, coin: unconfirmed(parent, 0, 50_000n) }], [{ script: bob.script, amount: 49_000n }]);
  assert.match((await rejection(v2child)).reason, /^TRUC-violation, non-version=3 tx .* cannot spend from version=3 tx/);

  const bigOuts = Array.from({ length: 40 }, () => ({ script: bob.script, amount: 1_000n }));
  const big = buildTx([{ wallet: alice, coin: unconfirmed(parent, 0, 50_000n) }], bigOuts, { version: 3 });
  assert.match((await rejection(big)).reason, /^TRUC-violation, version=3 child tx .* is too big: \d+ > 1000 virtual bytes/);

  const child = buildTx([{ wallet: alice, coin: unconfirmed(parent, 0, 50_000n) }], [{ script: alice.script, amount: 49_000n }], { version: 3 });
  await d.devnet.sendRawTransaction(child);
  const sibling = buildTx([{ wallet: alice, coin: unconfirmed(parent, 1, 49_000n) }], [{ script: bob.script, amount: 48_000n }], { version: 3 });
  // A second child may only evict the first by paying for it (Core 28 sibling eviction).
  assert.match((await rejection(sibling)).reason, /^insufficient fee \(including sibling eviction\), rejecting replacement/);
  const grandchild = buildTx([{ wallet: alice, coin: unconfirmed(child, 0, 49_000n) }], [{ script: bob.script, amount: 48_000n }], { version: 3 });
  assert.match((await rejection(grandchild)).reason, /^TRUC-violation, tx .* would have too many ancestors/);
  await d.devnet.mine(1);
  await d.devnet.sendRawTransaction(grandchild);
});
