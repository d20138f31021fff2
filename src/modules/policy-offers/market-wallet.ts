/**
 * The market wallet: a hot key that owns the collection-offer anchors and pays for refilling
 * them. Its key lives in a file of its own (`key.json` under MARKET_WALLET_DIR, mode 0600),
 * generated on first use, never in the market's database. It is NOT the market signer's key:
 * losing this one costs at most the anchors' few sats, and it can never co-sign an escrow.
 *
 * One market, one wallet: the anchors are rows of the shared store, and whichever instance
 * refills, sweeps or accepts signs for them. The store records the public key of the first
 * wallet opened on it (`claimMarketWallet`); an instance that opens another key (its own
 * MARKET_WALLET_DIR, a key file not copied) refuses to sign rather than broadcast signatures
 * the network refuses (simulated day 9107: two instances, two keys, every cross-instance
 * sweep and accept rejected as an invalid Schnorr signature).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { p2tr, type Transaction } from '@scure/btc-signer';
import { networkParams, type Network } from '../../bitcoin/networks.js';
import type { Db } from '../../store/db.js';
import { claimMeta } from '../../store/meta.js';
import { ApiError } from '../../http/errors.js';

/** The `meta` key holding the market wallet's x-only public key (hex). */
const RECORDED_KEY = 'market_wallet_key';

export class MarketWallet {
  readonly xOnly: Uint8Array;
  readonly address: string;
  readonly script: Uint8Array;

  private constructor(
    private readonly secret: Uint8Array,
    network: Network,
  ) {
    this.xOnly = schnorr.getPublicKey(secret);
    const pay = p2tr(this.xOnly, undefined, networkParams(network));
    this.address = pay.address!;
    this.script = pay.script;
  }

  static open(dir: string, network: Network): MarketWallet {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, 'key.json');
    if (!fs.existsSync(file)) {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ secret: hex.encode(crypto.randomBytes(32)), created_at: Date.now() }), { mode: 0o600 });
      fs.renameSync(tmp, file);
    }
    const { secret } = JSON.parse(fs.readFileSync(file, 'utf8')) as { secret: string };
    return new MarketWallet(hex.decode(secret), network);
  }

  /** Signs the inputs at `indexes` (this wallet's P2TR key path, SIGHASH_DEFAULT). */
  sign(tx: Transaction, indexes: number[]): void {
    for (const i of indexes) {
      tx.updateInput(i, { tapInternalKey: this.xOnly }, true);
      tx.signIdx(this.secret, i, undefined, new Uint8Array(32));
      tx.finalizeIdx(i);
    }
  }
}

/**
 * Records this wallet as the market's when none is yet, then checks that it is: another key is
 * 503 service_unavailable (an operator's fix: give every instance the same key file), before
 * anything is composed or signed with it.
 */
export async function claimMarketWallet(db: Db, w: MarketWallet, dir: string): Promise<MarketWallet> {
  const mine = hex.encode(w.xOnly);
  const recorded = await claimMeta(db, RECORDED_KEY, mine);
  if (recorded !== mine) {
    throw new ApiError(
      'service_unavailable',
      `this instance's market wallet (${dir}/key.json, key ${mine}) is not the market's (key ${recorded}): every instance of one market must use the same market wallet key file; collection offers are unavailable on this instance until it does`,
    );
  }
  return w;
}
