/** Address decoding (BIP-173/350 vectors), encoding round trips and role rules on all networks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bech32m, hex } from '@scure/base';
import { Address as Bip322Address } from 'bip322-js';
import {
  checkAddressRole, decodeAddress, scriptFamily, scriptToAddress, type AddressFamily, type AddressRole,
} from '../../src/bitcoin/address.js';
import { isNetwork, NETWORKS, type Network } from '../../src/bitcoin/networks.js';
import { makeWallet } from '../helpers/wallets.js';

void test('BIP-173/350 valid mainnet and testnet vectors decode to the right script', () => {
  const cases: [string, Network, AddressFamily, string][] = [
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'mainnet', 'p2wpkh', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'mainnet', 'p2wpkh', '0014751e76e8199196d454941c45d1b3a323f1433bd6'],
    ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'testnet4', 'p2wsh',
      '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'],
    ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'signet', 'p2wsh',
      '00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'mainnet', 'p2tr',
      '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'],
    // BIP-341 wallet vector.
    ['bc1p2wsldez5mud2yam29q22wgfh9439spgduvct83k3pm50fcxa5dps59h4z5', 'mainnet', 'p2tr',
      '512053a1f6e454df1aa2776a2814a721372d6258050de330b3c6d10ee8f4e0dda343'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'mainnet', 'p2pkh', '76a91477bff20c60e522dfaa3350c39b030a5d004e839a88ac'],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'mainnet', 'p2sh', 'a914b472a266d0bd89c13706a4132ccfb16f7c3b9fcb87'],
  ];
  for (const [addr, net, family, script] of cases) {
    const d = decodeAddress(addr, net);
    assert.ok(d.ok, addr);
    assert.equal(d.family, family, addr);
    assert.equal(hex.encode(d.script), script, addr);
    assert.equal(scriptFamily(d.script), family);
    // Encoding gives the canonical lowercase form (BIP-173: uppercase is valid input only).
    assert.equal(scriptToAddress(d.script, net), addr.startsWith('BC') ? addr.toLowerCase() : addr);
  }
});

void test('BIP-350 invalid vectors, bad checksums and unsupported programs are invalid', () => {
  const invalid: [string, Network][] = [
    ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', 'testnet4'], // bad hrp
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', 'mainnet'], // v1 with bech32
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', 'mainnet'], // v0 with bech32m
    ['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', 'testnet4'], // v0 with bech32m
    ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', 'mainnet'], // bad char
    ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', 'mainnet'], // bad version
    ['bc1pw5dgrnzv', 'mainnet'], // 1-byte program
    ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', 'mainnet'], // 16-byte v0 program
    ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', 'testnet4'], // mixed case
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', 'mainnet'], // padding
    ['bc1gmk9yu', 'mainnet'], // empty data
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', 'mainnet'], // checksum
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3', 'mainnet'], // base58 checksum
    // Valid BIP-350 v16 address: a future witness version no role can use.
    ['BC1SW50QGDZ25J', 'mainnet'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', 'mainnet'],
    ['', 'mainnet'],
  ];
  for (const [addr, net] of invalid) assert.deepEqual(decodeAddress(addr, net), { ok: false, reason: 'invalid' }, addr);
});

void test('regtest uses bcrt, testnet4 and signet use tb, and wrong-network addresses are invalid', () => {
  for (const network of NETWORKS) {
    for (const family of ['p2pkh', 'p2wpkh', 'p2tr'] as const) {
      const w = makeWallet(family, 'net', network);
      const prefix = { mainnet: { p2pkh: '1', seg: 'bc1' }, testnet4: { p2pkh: 'mn', seg: 'tb1' }, signet: { p2pkh: 'mn', seg: 'tb1' },
        regtest: { p2pkh: 'mn', seg: 'bcrt1' } }[network];
      if (family === 'p2pkh') assert.ok(prefix.p2pkh.includes(w.address[0]!), w.address);
      else assert.ok(w.address.startsWith(prefix.seg) && !w.address.startsWith(prefix.seg === 'bc1' ? 'bcrt' : 'x'), w.address);
      const d = decodeAddress(w.address, network);
      assert.ok(d.ok);
      assert.deepEqual(d.script, w.script);
      assert.equal(scriptToAddress(w.script, network), w.address);
      for (const other of NETWORKS) {
        const sameParams = (a: Network, b: Network) => a === b || (family === 'p2pkh' ? a !== 'mainnet' && b !== 'mainnet'
          : ['testnet4', 'signet'].includes(a) && ['testnet4', 'signet'].includes(b));
        assert.equal(decodeAddress(w.address, other).ok, sameParams(network, other), `${w.address} on ${other}`);
      }
    }
  }
});

void test('addresses match an independent encoder (bitcoinjs via bip322-js)', () => {
  for (const label of ['a', 'b', 'c']) {
    for (const [family, type] of [['p2pkh', 'p2pkh'], ['p2wpkh', 'p2wpkh'], ['p2tr', 'p2tr']] as const) {
      const main = makeWallet(family, label, 'mainnet');
      const reg = makeWallet(family, label, 'regtest');
      const test4 = makeWallet(family, label, 'testnet4');
      const other = Bip322Address.convertPubKeyIntoAddress(Buffer.from(main.publicKey), type);
      assert.equal(main.address, other.mainnet);
      assert.equal(reg.address, other.regtest);
      assert.equal(test4.address, other.testnet);
    }
  }
});

void test('checkAddressRole follows the spec table on every network', () => {
  const table: Record<AddressRole, Record<AddressFamily, boolean>> = {
    signing: { p2pkh: false, p2sh: false, p2wpkh: true, p2wsh: false, p2tr: true },
    delivery: { p2pkh: true, p2sh: true, p2wpkh: true, p2wsh: true, p2tr: true },
    source: { p2pkh: true, p2sh: false, p2wpkh: true, p2wsh: false, p2tr: true },
  };
  const scripts: Record<AddressFamily, string> = {
    p2pkh: '76a914' + '11'.repeat(20) + '88ac',
    p2sh: 'a914' + '22'.repeat(20) + '87',
    p2wpkh: '0014' + '33'.repeat(20),
    p2wsh: '0020' + '44'.repeat(32),
    p2tr: '5120' + '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
  };
  for (const network of NETWORKS) {
    for (const [family, scriptHex] of Object.entries(scripts) as [AddressFamily, string][]) {
      const address = scriptToAddress(hex.decode(scriptHex), network);
      assert.ok(address, `${family} on ${network}`);
      for (const role of ['signing', 'delivery', 'source'] as const) {
        const r = checkAddressRole(address, role, network);
        if (table[role][family]) {
          assert.ok(r.ok, `${role} ${family} ${network}`);
          assert.equal(r.family, family);
          assert.equal(hex.encode(r.script), scriptHex);
        } else {
          assert.deepEqual(r, { ok: false, reason: 'wrong_role', family }, `${role} ${family} ${network}`);
        }
      }
      // The same address on the mainnet/test split is invalid, never wrong_role.
      const wrongNet: Network = network === 'mainnet' ? 'regtest' : 'mainnet';
      assert.deepEqual(checkAddressRole(address, 'delivery', wrongNet), { ok: false, reason: 'invalid' });
    }
  }
});

void test('a P2TR output key that is not on the curve is refused (funds there are unspendable)', () => {
  // x = 5 has no square root for y on secp256k1 (BIP-340 lift_x fails).
  const offCurve = '5120' + '00'.repeat(31) + '05';
  assert.equal(scriptToAddress(hex.decode(offCurve), 'mainnet'), undefined);
  const addr = bech32m.encode('bc', [1, ...bech32m.toWords(hex.decode(offCurve).subarray(2))]);
  assert.deepEqual(decodeAddress(addr, 'mainnet'), { ok: false, reason: 'invalid' });
  // The same encoding with a valid x (the generator's) decodes.
  const good = bech32m.encode('bc', [1, ...bech32m.toWords(hex.decode('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'))]);
  assert.equal(decodeAddress(good, 'mainnet').ok, true);
  assert.equal(scriptFamily(hex.decode('6a0401020304')), undefined);
  assert.equal(isNetwork('testnet4'), true);
  assert.equal(isNetwork('testnet'), false);
});

void test('a decoded address is kept, and handed out as a copy each time', () => {
  const w = makeWallet('p2tr', 'decode-copy');
  const first = decodeAddress(w.address, 'regtest');
  assert.ok(first.ok);
  assert.deepEqual(first.script, w.script);
  first.script.fill(0);
  first.program.fill(0);
  const again = decodeAddress(w.address, 'regtest');
  assert.ok(again.ok);
  assert.deepEqual(again.script, w.script);
  assert.deepEqual(again.program, w.script.subarray(2));
  // The same text on another network is decoded for that network.
  assert.deepEqual(decodeAddress(w.address, 'mainnet'), { ok: false, reason: 'invalid' });
});
