/** The devnet behind the `BitcoinBackend` port. */
import { bytesToHex } from '@noble/hashes/utils.js';
import { outputAddress } from '../../counterparty/tx-info.js';
import {
  TxRejected, type AcceptResult, type BitcoinBackend, type ChainBlock, type ChainTip, type ChainTransaction, type ChainUtxo,
  type FeeEstimates, type MempoolEntry, type PackageResult,
} from '../ports.js';
import type { Devnet } from './devnet.js';
import { acceptResultOf, packageResultOf } from '../bitcoin-core/relay.js';
import { btcPerKvbToSatPerVb } from '../bitcoin-core/fees.js';
import { RPC_VERIFY_ALREADY_IN_CHAIN } from './validation.js';

export class DevnetBitcoinBackend implements BitcoinBackend {
  readonly kind = 'devnet' as const;

  constructor(private readonly d: Devnet) {}

  private get node() {
    return this.d.state;
  }

  async getBestBlockHash(): Promise<string> {
    return this.node.chain.tip().hash;
  }

  async getTip(): Promise<ChainTip> {
    const t = this.node.chain.tip();
    return { height: t.height, hash: t.hash };
  }

  async getBlockHash(height: number): Promise<string | null> {
    return this.node.chain.block(height)?.hash ?? null;
  }

  async getBlock(hash: string): Promise<ChainBlock | null> {
    const h = this.node.chain.heightOf(hash);
    const b = h === undefined ? undefined : this.node.chain.block(h);
    if (!b) return null;
    return { height: b.height, hash: b.hash, prev_hash: b.prevHash, time: b.time, txs: b.txs.map((t) => ({ txid: t.txid, hex: t.hex })) };
  }

  async getTransaction(txid: string): Promise<ChainTransaction | null> {
    const pooled = this.node.mempool.get(txid);
    if (pooled) return { txid, hex: pooled.tx.hex, confirmations: 0, block_hash: null, block_height: null };
    const c = this.node.chain.confirmedTx(txid);
    if (!c) return null;
    return { txid, hex: c.tx.hex, confirmations: this.node.chain.height - c.block.height + 1, block_hash: c.block.hash, block_height: c.block.height };
  }

  async getTxOut(txid: string, vout: number, includeMempool = true): Promise<ChainUtxo | null> {
    if (includeMempool && this.node.mempool.spender(txid, vout)) return null;
    const coin = this.node.chain.coin(txid, vout);
    const out = coin ?? (includeMempool ? this.node.mempool.output(txid, vout) : undefined);
    if (!out || (out.script.length > 0 && out.script[0] === 0x6a)) return null;
    return {
      txid, vout, value_sats: Number(out.value), script_hex: bytesToHex(out.script), address: outputAddress(out.script, this.d.network),
      confirmations: coin ? this.node.chain.height - coin.height + 1 : 0, coinbase: coin?.coinbase ?? false,
    };
  }

  async getMempoolEntry(txid: string): Promise<MempoolEntry | null> {
    const e = this.node.mempool.get(txid);
    if (!e) return null;
    const r = this.d.rpc.mempoolEntry(e);
    return { txid, vsize: e.tx.vsize, fee_sats: Number(e.fee), ancestor_count: r.ancestorcount, descendant_count: r.descendantcount, time: e.time };
  }

  /** The configured estimates; `minimum` is the node's floor (`getmempoolinfo`), as the Core adapter reads it. */
  async estimateFees(): Promise<FeeEstimates> {
    const info = this.d.rpc.getmempoolinfo();
    const floor = btcPerKvbToSatPerVb(Math.max(info.mempoolminfee, info.minrelaytxfee));
    const f = this.d.feeEstimates;
    const at = (r: number) => Math.max(r, floor);
    return { fastest: at(f.fastest), half_hour: at(f.half_hour), hour: at(f.hour), economy: at(f.economy), minimum: floor };
  }

  /** Read as a real node's reply is (a member validation did not reach has no `allowed`). */
  async testAccept(hexes: string[]): Promise<AcceptResult[]> {
    return (await this.d.testMempoolAccept(hexes)).map(acceptResultOf);
  }

  /** Already-known (mempool or chain) counts as success, as the port promises. */
  async broadcast(hex: string): Promise<string> {
    try {
      return await this.d.sendRawTransaction(hex);
    } catch (e) {
      if (e instanceof TxRejected && e.rpcCode === RPC_VERIFY_ALREADY_IN_CHAIN && e.txid) return e.txid;
      throw e;
    }
  }

  /** The reply read as a real node's is (bitcoin-core/relay.ts): a parent that landed is a result. */
  async submitPackage(hexes: string[]): Promise<PackageResult> {
    return packageResultOf(await this.d.submitPackage(hexes), hexes);
  }
}
