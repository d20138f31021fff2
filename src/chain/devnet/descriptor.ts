/**
 * Output descriptors as Bitcoin Core prints them beside a script (BIP-380 checksum, and
 * `InferDescriptor` without any key information): `rawtr(<x-only key>)` for a taproot output,
 * `pk(<key>)` for a bare public key, `addr(<address>)` for any other script with an address, and
 * `raw(<hex>)` for the rest. Bare multisig (`multi(…)` in Core) is printed `raw(…)`: the market
 * never makes one (docs/devnet.md).
 */
import { bytesToHex } from '@noble/hashes/utils.js';

// BIP-380 descriptor checksum: a BCH code over the descriptor's characters in groups of three.
const INPUT_CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: number[]): bigint {
  let c = 1n;
  for (const v of symbols) {
    const top = c >> 35n;
    c = ((c & 0x7ffffffffn) << 5n) ^ BigInt(v);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) c ^= GENERATOR[i]!;
  }
  return c;
}

/** The 8-character checksum of a descriptor; null when it holds a character outside the charset. */
export function descriptorChecksum(desc: string): string | null {
  const symbols: number[] = [];
  let groups: number[] = [];
  for (const ch of desc) {
    const v = INPUT_CHARSET.indexOf(ch);
    if (v < 0) return null;
    symbols.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0]! * 9 + groups[1]! * 3 + groups[2]!);
      groups = [];
    }
  }
  if (groups.length === 1) symbols.push(groups[0]!);
  if (groups.length === 2) symbols.push(groups[0]! * 3 + groups[1]!);
  const c = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((c >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}

/** Core's `desc` of an output script, with its checksum. */
export function inferredDescriptor(script: Uint8Array, address: string | null | undefined): string {
  const desc =
    script.length === 34 && script[0] === 0x51 && script[1] === 0x20
      ? `rawtr(${bytesToHex(script.slice(2))})`
      : (script.length === 35 && script[0] === 33 && script[34] === 0xac) || (script.length === 67 && script[0] === 65 && script[66] === 0xac)
        ? `pk(${bytesToHex(script.slice(1, -1))})`
        : address
          ? `addr(${address})`
          : `raw(${bytesToHex(script)})`;
  return `${desc}#${descriptorChecksum(desc)}`;
}
