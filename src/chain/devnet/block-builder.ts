/**
 * Real regtest blocks: 80-byte headers whose hash meets the regtest target (bits 0x207fffff),
 * a BIP-34 coinbase paying the regtest subsidy (halving every 150 blocks) plus fees, and the
 * BIP-141 witness commitment. Block 0 is Bitcoin's actual regtest genesis block.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { RawTx } from '@scure/btc-signer';
import { decodeTx, hash256Display, type DecodedTx } from './tx-decode.js';

export const REGTEST_BITS = 0x207fffff;
export const REGTEST_HALVING_INTERVAL = 150;
const BLOCK_VERSION = 0x20000000;

/** Bitcoin Core's regtest genesis block (chainparams.cpp). */
export const REGTEST_GENESIS = Object.freeze({
  hash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
  header:
    '0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4adae5494dffff7f2002000000',
  coinbase:
    '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000',
});

export interface BlockHeader {
  version: number;
  /** Display hex. */
  prevHash: string;
  /** Display hex. */
  merkleRoot: string;
  time: number;
  bits: number;
  nonce: number;
}

const reverseHex = (h: string): Uint8Array => hexToBytes(h).reverse();

export function encodeHeader(h: BlockHeader): Uint8Array {
  const out = new Uint8Array(80);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, h.version >>> 0, true);
  out.set(reverseHex(h.prevHash), 4);
  out.set(reverseHex(h.merkleRoot), 36);
  dv.setUint32(68, h.time >>> 0, true);
  dv.setUint32(72, h.bits >>> 0, true);
  dv.setUint32(76, h.nonce >>> 0, true);
  return out;
}

export function decodeHeader(b: Uint8Array): BlockHeader {
  if (b.length !== 80) throw new Error('block header must be 80 bytes');
  const dv = new DataView(b.buffer, b.byteOffset, 80);
  return {
    version: dv.getUint32(0, true),
    prevHash: bytesToHex(b.slice(4, 36).reverse()),
    merkleRoot: bytesToHex(b.slice(36, 68).reverse()),
    time: dv.getUint32(68, true),
    bits: dv.getUint32(72, true),
    nonce: dv.getUint32(76, true),
  };
}

/** The target a hash must not exceed, from compact `bits`. */
export function targetFromBits(bits: number): bigint {
  const exp = bits >>> 24;
  const mant = BigInt(bits & 0x7fffff);
  return exp <= 3 ? mant >> BigInt(8 * (3 - exp)) : mant << BigInt(8 * (exp - 3));
}

/** Difficulty as `getblockchaininfo` reports it (regtest: 4.656542373906925e-10). */
export function difficulty(bits: number): number {
  return Number(targetFromBits(0x1d00ffff)) / Number(targetFromBits(bits));
}

/** Merkle root of display-hex ids (Bitcoin's duplicate-last-node tree), as display hex. */
export function merkleRoot(ids: readonly string[]): string {
  if (ids.length === 0) throw new Error('merkle root of nothing');
  let level = ids.map((id) => reverseHex(id));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i]!;
      const b = level[i + 1] ?? a;
      const cat = new Uint8Array(64);
      cat.set(a, 0);
      cat.set(b, 32);
      next.push(sha256(sha256(cat)));
    }
    level = next;
  }
  return bytesToHex(level[0]!.slice().reverse());
}

/** Grinds the nonce until the header hash meets its target (about two tries on regtest). */
export function mineHeader(h: Omit<BlockHeader, 'nonce'>): { header: Uint8Array; hash: string } {
  const target = targetFromBits(h.bits);
  for (let nonce = 0; nonce <= 0xffffffff; nonce++) {
    const header = encodeHeader({ ...h, nonce });
    const hash = hash256Display(header);
    if (BigInt(`0x${hash}`) <= target) return { header, hash };
  }
  throw new Error('no nonce meets the target');
}

export function blockSubsidy(height: number): bigint {
  const halvings = Math.floor(height / REGTEST_HALVING_INTERVAL);
  return halvings >= 64 ? 0n : (50n * 100_000_000n) >> BigInt(halvings);
}

/** BIP-34 height push: `CScript() << height` (OP_0, OP_1..OP_16, else minimal CScriptNum). */
function heightPush(height: number): number[] {
  if (height === 0) return [0x00];
  if (height <= 16) return [0x50 + height];
  const bytes: number[] = [];
  let n = height;
  while (n > 0) {
    bytes.push(n & 0xff);
    n >>>= 8;
  }
  if (bytes[bytes.length - 1]! & 0x80) bytes.push(0);
  return [bytes.length, ...bytes];
}

/**
 * The coinbase of a block at `height`: pays `value` to `script`, carries `extraNonce` so two
 * blocks at one height (a reorg) never share a coinbase txid, and commits to the block's
 * wtxids (BIP-141; the coinbase's own wtxid counts as zero).
 */
export function buildCoinbase(p: { height: number; script: Uint8Array; value: bigint; extraNonce: Uint8Array; wtxids: readonly string[] }): DecodedTx {
  const reserved = new Uint8Array(32);
  const witnessRoot = merkleRoot(['00'.repeat(32), ...p.wtxids]);
  const commitInput = new Uint8Array(64);
  commitInput.set(reverseHex(witnessRoot), 0);
  commitInput.set(reserved, 32);
  const commitment = sha256(sha256(commitInput));
  const commitScript = new Uint8Array([0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed, ...commitment]);
  const raw = RawTx.encode({
    version: 2,
    segwitFlag: true,
    inputs: [{
      txid: new Uint8Array(32),
      index: 0xffffffff,
      finalScriptSig: new Uint8Array([...heightPush(p.height), p.extraNonce.length, ...p.extraNonce]),
      sequence: 0xffffffff,
    }],
    outputs: [{ amount: p.value, script: p.script }, { amount: 0n, script: commitScript }],
    witnesses: [[reserved]],
    lockTime: 0,
  });
  return decodeTx(raw);
}

export function assembleHeader(p: { prevHash: string; time: number; txids: readonly string[] }): { header: Uint8Array; hash: string } {
  return mineHeader({ version: BLOCK_VERSION, prevHash: p.prevHash, merkleRoot: merkleRoot(p.txids), time: p.time, bits: REGTEST_BITS });
}
