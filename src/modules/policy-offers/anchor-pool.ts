/**
 * Keeps the anchor pool full and sweeps retired anchors, in one batch transaction per run: its
 * inputs are every retired anchor (which kills any parent that names one) plus market-wallet
 * coins as needed; its outputs are the anchors the pool lacks and the wallet's change. It is
 * journaled like every signed settlement (kind `anchor_refill`, claims on its inputs) before it
 * is broadcast, so a crash loses nothing and recovery relays it. On the devnet an empty wallet
 * is funded from the faucet.
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import type { Context } from '../../context.js';
import { estimateSize } from '../../bitcoin/vsize.js';
import type { SettlementHandlers } from '../../settlement/journal.js';
import { spentOutpoints } from '../../settlement/journal.js';
import { feeFor } from '../../trade/compose.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { spendableCoins } from '../../trade/coins.js';
import { addAnchors, confirmRefill, releaseRefill, sweepAnchor, unconfirmRefill } from './anchors.js';
import type { MarketWallet } from './market-wallet.js';

const DEVNET_TOPUP_SATS = 1_000_000;

export interface PoolCounts {
  free: number;
  pending: number;
  reserved: number;
  retired: number;
  sweeping: number;
  spent: number;
}

export async function poolCounts(ctx: Pick<Context, 'store'>): Promise<PoolCounts> {
  const rows = await ctx.store.db.selectFrom('market_anchors').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('state').execute();
  const c: PoolCounts = { free: 0, pending: 0, reserved: 0, retired: 0, sweeping: 0, spent: 0 };
  for (const r of rows) c[r.state] = Number(r.n);
  return c;
}

/**
 * The wallet's spendable coins (src/trade/coins.ts) that are not anchors, nor anchors to be: a
 * collection-offer parent's output 1 returns the anchor's value to the wallet and becomes a free
 * anchor once the market indexes the parent's block (handlers.ts). The node reports it confirmed
 * before that, so a refill run in between would take it as a plain coin and the indexer would then
 * add an anchor already spent (simulated day 9116: every later sweep of it lost its claim and the
 * upkeep job failed each run until the day ended).
 */
export function walletCoins(ctx: Context, wallet: MarketWallet) {
  const anchors = async (keys: string[]) => {
    const outs1 = [...new Set(keys.filter((k) => k.endsWith(':1')).map((k) => k.slice(0, -2)))];
    const [rows, parents] = await Promise.all([
      ctx.store.db.selectFrom('market_anchors').select('outpoint').where('outpoint', 'in', keys).execute(),
      outs1.length ? ctx.store.db.selectFrom('policy_funding_sets').select('parent_txid').where('parent_txid', 'in', outs1).execute() : [],
    ]);
    return new Set([...rows.map((a) => a.outpoint), ...parents.map((p) => `${p.parent_txid}:1`)]);
  };
  return spendableCoins(ctx, wallet.address, { parsedOnly: false, exclude: anchors });
}

const WARN_EVERY_MS = 10 * 60_000;

export class AnchorPool {
  private warnedAt = 0;
  /** The refused refills already reported (a txid each), so a stuck pool warns once per transaction. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly ctx: Context,
    private readonly openWallet: () => Promise<MarketWallet>,
  ) {}

  /** One batch: refill to ANCHOR_POOL_SIZE free-or-pending anchors and sweep the retired ones. Returns the journaled txid, if any. */
  async refill(): Promise<string | null> {
    const { ctx } = this;
    const target = ctx.config.ANCHOR_POOL_SIZE;
    const value = ctx.config.ANCHOR_VALUE_SATS;
    const counts = await poolCounts(ctx);
    const need = Math.max(0, target - counts.free - counts.pending);
    // A retired anchor another settlement already spends is not swept (its claim would fail the
    // whole batch every run); it is swept if that settlement is released.
    const listed = await ctx.store.db.selectFrom('market_anchors').selectAll().where('state', '=', 'retired').limit(100).execute();
    const claimed = listed.length ? await ctx.journal.claimed(ctx.store.db, listed.map((r) => r.outpoint)) : new Set<string>();
    const retired = listed.filter((r) => !claimed.has(r.outpoint));
    if (need === 0 && !retired.length) return null;
    const wallet = await this.openWallet();
    const rate = await defaultFeeRate(ctx);
    let coins = await walletCoins(ctx, wallet);
    const plan = () => {
      const ins = retired.map((r) => ({ txid: r.txid, vout: r.vout, value_sats: Number(r.value_sats) }));
      let total = ins.reduce((s, i) => s + i.value_sats, 0);
      for (const c of coins) {
        const size = estimateSize(Array(ins.length).fill('p2tr-key'), Array(need + 1).fill('p2tr')).vsize;
        if (total >= need * value + feeFor(size, rate) + 330) break;
        ins.push(c);
        total += c.value_sats;
      }
      const size = estimateSize(Array(ins.length).fill('p2tr-key'), Array(need + 1).fill('p2tr')).vsize;
      const change = total - need * value - feeFor(size, rate);
      return change >= 330 ? { ins, change } : null;
    };
    let p = plan();
    if (!p && ctx.devnet) {
      await ctx.devnet.faucet(wallet.address, Math.max(DEVNET_TOPUP_SATS, need * value * 2));
      coins = await walletCoins(ctx, wallet);
      p = plan();
    }
    if (!p) {
      const now = Date.now();
      if (now - this.warnedAt >= WARN_EVERY_MS) {
        this.warnedAt = now;
        ctx.logger.warn({ need, retired: retired.length, wallet: wallet.address }, 'anchor pool: the market wallet cannot fund a refill; fund its address');
      }
      return null;
    }
    // Locked to the indexed tip (as Bitcoin Core's wallet locks its own: anti fee sniping): the
    // same plan in a later block is a new transaction, so a refill the node refused is tried
    // again at most once a block (the journal keeps one settlement per txid).
    const tip = (await ctx.indexer.cursor())?.height ?? 0;
    const tx = new Transaction({ version: 2, lockTime: tip });
    for (const i of p.ins) tx.addInput({ txid: i.txid, index: i.vout, sequence: 0xfffffffd, witnessUtxo: { script: wallet.script, amount: BigInt(i.value_sats) } });
    for (let k = 0; k < need; k++) tx.addOutput({ script: wallet.script, amount: BigInt(value) });
    tx.addOutput({ script: wallet.script, amount: BigInt(p.change) });
    wallet.sign(tx, p.ins.map((_, k) => k));
    const signed = { txid: tx.id, hex: hex.encode(tx.extract()) };
    // The same inputs, outputs, fee rate and tip make the same transaction: one the node already
    // refused (released, its anchors back to retired) is not sent again in this block, and the
    // journal holds one settlement per txid.
    const refused = await ctx.journal.byTxid(ctx.store.db, signed.txid);
    if (refused) {
      if (!this.reported.has(signed.txid)) {
        this.reported.add(signed.txid);
        ctx.logger.warn({ txid: signed.txid, settlement: refused.id, state: refused.state, reason: refused.mempool_reason }, 'anchor pool: this refill was already journaled and refused; it is composed again in the next block');
      }
      return null;
    }
    const now = Math.floor(ctx.clock.now() / 1000);
    const s = await ctx.store.db.transaction().execute(async (t) => {
      for (const r of retired) await sweepAnchor(t, r.outpoint, now);
      await addAnchors(t, Array.from({ length: need }, (_, k) => ({ txid: signed.txid, vout: k, value_sats: value })), 'pending', now);
      return ctx.journal.journal(t, { kind: 'anchor_refill', ref_id: signed.txid, txs: [signed], claims: p.ins.map((i) => `${i.txid}:${i.vout}`) });
    });
    await ctx.journal.relay(s.id);
    return signed.txid;
  }
}

const swept = (s: { txs: string }) => spentOutpoints(JSON.parse(s.txs) as Array<{ txid: string; hex: string }>);

/** The journal's reactions for kind `anchor_refill`. */
export function anchorRefillHandlers(now: () => number): SettlementHandlers {
  return {
    onConfirmed: (tx, s) => confirmRefill(tx, s.txid, swept(s), now()),
    onReleased: (tx, s) => releaseRefill(tx, s.txid, swept(s), now()),
    onUnconfirmed: (tx, s) => unconfirmRefill(tx, s.txid, now()),
  };
}
