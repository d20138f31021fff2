/**
 * The market wallet: a hot key that owns the collection-offer anchors and pays for refilling
 * them. Its key lives in a file of its own (`key.json` under MARKET_WALLET_DIR, mode 0600),
 * generated on first use, never in the market's database. It is NOT the market signer's key:
 * losing this one costs at most the anchors' few sats, and it can never co-sign an escrow.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { p2tr, type Transaction } from '@scure/btc-signer';
import { networkParams, type Network } from '../../bitcoin/networks.js';

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
