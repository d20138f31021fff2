/**
 * The devnet miner's wallet: a P2WPKH key that receives block rewards and pays the faucet.
 * Its key is derived from a seed (regtest only; never real funds). The faucet spends the
 * oldest coins first, so a reorg of recent blocks never takes back a faucet payment's inputs
 * (the same reason Core makes coinbase outputs wait 100 blocks).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p2wpkh, SigHash, Transaction } from '@scure/btc-signer';
import { networkParams, type Network } from '../../bitcoin/networks.js';
import type { StoredCoin } from './chain-state.js';
import { DevnetUsageError } from './usage-error.js';

export class MinerWallet {
  readonly privateKey: Uint8Array;
  readonly script: Uint8Array;
  readonly address: string;

  constructor(seed: string, network: Network) {
    let k = sha256(new TextEncoder().encode(`cpmkt-devnet-miner:${seed}`));
    while (!secp256k1.utils.isValidSecretKey(k)) k = sha256(k);
    this.privateKey = k;
    const pay = p2wpkh(secp256k1.getPublicKey(k, true), networkParams(network));
    this.script = pay.script;
    this.address = pay.address!;
  }

  /**
   * A signed payment of `amount` to `script` from `coins` (oldest first), change back to the
   * miner, paying `feeRate` sat/vB. Throws when the coins cannot cover it.
   */
  pay(coins: readonly StoredCoin[], to: { script: Uint8Array; amount: bigint }, feeRate: bigint): Uint8Array {
    const chosen: StoredCoin[] = [];
    let total = 0n;
    // 68 vB per P2WPKH input, ~11 vB overhead, 31–43 vB per output.
    const feeFor = (inputs: number) => feeRate * BigInt(11 + 68 * inputs + 43 * 2);
    for (const c of coins) {
      chosen.push(c);
      total += c.value;
      if (total >= to.amount + feeFor(chosen.length) + 330n) break;
    }
    const fee = feeFor(chosen.length);
    // The caller asked for more than the miner can pay: a usage error (400), not a crash.
    if (total < to.amount + fee) throw new DevnetUsageError(`devnet faucet: the miner holds ${total} spendable sats, ${to.amount + fee} needed; mine blocks first (POST /devnet/mine) or ask for less`);
    const tx = new Transaction({ allowUnknownOutputs: true });
    for (const c of chosen) tx.addInput({ txid: c.txid, index: c.vout, witnessUtxo: { script: c.script, amount: c.value } });
    tx.addOutput({ script: to.script, amount: to.amount });
    const change = total - to.amount - fee;
    // Change below the P2WPKH dust limit is left to the fee.
    if (change >= 294n) tx.addOutput({ script: this.script, amount: change });
    tx.sign(this.privateKey, [SigHash.ALL]);
    tx.finalize();
    return tx.extract();
  }
}
