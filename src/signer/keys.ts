/**
 * The market signer's keys: a file of its own (`keys.json` under the signer's directory, mode
 * 0600), never in the market's database. Generated on first start. Keys are versioned: retiring
 * the current key makes a new version, and a retired key never signs again (its public key stays
 * published so old receipts and signatures can still be checked).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';

export interface SignerKey {
  version: number;
  /** x-only public key (BIP-340), hex. */
  pubkey: string;
  created_at: number;
  retired_at: number | null;
}

/** A statement the market key signs (BIP-340 over the message's SHA-256), so anyone can hold the signer to it. */
export interface SignerReceipt {
  key_version: number;
  pubkey: string;
  message: string;
  signature: string;
}

interface StoredKey extends SignerKey {
  secret: string;
}

export class SignerKeys {
  private keys: StoredKey[];

  private constructor(
    private readonly file: string,
    keys: StoredKey[],
  ) {
    this.keys = keys;
  }

  /** Opens the key file under `dir`, creating the directory and a first key when there is none. */
  static open(dir: string, now: () => number): SignerKeys {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, 'keys.json');
    if (!fs.existsSync(file)) {
      const k = new SignerKeys(file, []);
      k.add(now());
      return k;
    }
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { keys: StoredKey[] };
    if (!Array.isArray(parsed.keys) || !parsed.keys.length) throw new Error(`signer: ${file} holds no key`);
    return new SignerKeys(file, parsed.keys);
  }

  /** The key that signs now (the newest, never retired). */
  current(): SignerKey {
    const k = this.keys.at(-1)!;
    return publicPart(k);
  }

  all(): SignerKey[] {
    return this.keys.map(publicPart);
  }

  /** Signs a 32-byte message with `version`, which must be the current, unretired key. */
  sign(version: number, msg: Uint8Array): Uint8Array {
    const k = this.keys.find((x) => x.version === version);
    if (!k) throw new KeyRefused('key_unknown', `no signer key version ${version}`);
    if (k.retired_at !== null) throw new KeyRefused('key_retired', `signer key version ${version} is retired and never signs again`);
    return schnorr.sign(msg, hex.decode(k.secret), crypto.randomBytes(32));
  }

  /** `message` signed by the current key: a cancel or delist receipt. */
  receipt(message: string): SignerReceipt {
    const k = this.current();
    return { key_version: k.version, pubkey: k.pubkey, message, signature: hex.encode(this.sign(k.version, sha256(new TextEncoder().encode(message)))) };
  }

  /** Retires the current key and makes the next version; returns the new key. */
  rotate(now: number): SignerKey {
    const cur = this.keys.at(-1)!;
    cur.retired_at = now;
    return this.add(now);
  }

  private add(now: number): SignerKey {
    let secret: Uint8Array;
    do secret = crypto.randomBytes(32);
    while (!secp256k1.utils.isValidSecretKey(secret));
    const k: StoredKey = { version: (this.keys.at(-1)?.version ?? 0) + 1, secret: hex.encode(secret), pubkey: hex.encode(schnorr.getPublicKey(secret)), created_at: now, retired_at: null };
    this.keys.push(k);
    this.save();
    return publicPart(k);
  }

  /** Written whole to a temporary file and renamed, so a crash never leaves half a key file. */
  private save(): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ keys: this.keys }, null, 2), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}


const publicPart = (k: StoredKey): SignerKey => ({ version: k.version, pubkey: k.pubkey, created_at: k.created_at, retired_at: k.retired_at });

/** A refusal of the signer, with a published code (refusal_code). */
export class KeyRefused extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    /** Facts the caller may act on (listing_signed_other: the `signed_txid`). */
    readonly extras: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Every reason the signer refuses, published in the OpenAPI document. */
export const REFUSAL_CODES = ['alternative_cancelled', 'parent_cancelled', 'already_signed_other', 'key_retired', 'key_unknown', 'leaf_without_market_key', 'bad_request', 'listing_delisted', 'listing_signed_other'] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];
