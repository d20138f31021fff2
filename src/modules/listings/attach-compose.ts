/**
 * Composing an attach: balance checks (asset and XCP fee, net of what open drafts promised),
 * coin selection over asset-free BTC of asset_source, and the unsigned PSBT.
 *
 * Coins: explicit `funding` outpoints are used alone, confirmed or not (this is how an attach
 * chains on the change of a previous one). Otherwise confirmed UTXOs of asset_source, largest
 * first, excluding any that carries a Counterparty balance (spending it would move the balance),
 * any claimed by a settlement in flight, and any an open unsigned draft of the same seller
 * already uses (another seller's unsigned draft reserves nothing: see balances.ts).
 */
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { decodeAddress } from '../../bitcoin/address.js';
import { XCP } from '../../counterparty/asset-names.js';
import { addressLevel, commitments } from './balances.js';
import type { ListingStore } from './store.js';
import { ASSET_UTXO_SATS, attachOpReturn, buildAttachPsbt, DUST_SATS, planAttach, type FundingInput, type SourceFamily } from './templates.js';
import { outpointKey } from '../../trade/outpoints.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { namedCoins, spendableCoins } from '../../trade/coins.js';

export interface ComposeParams {
  seller: string;
  source: string;
  asset: string;
  quantityRaw: string;
  feeRate?: number;
  funding?: { txid: string; vout: number }[];
  sourceTapKey: Uint8Array | null;
  now: number;
  /** Answer 422 insufficient_funds with `reason: no_funding, retryable: true` when BTC is only confirming. */
  noFundingRetryable: boolean;
  /** Where output 0 (the new asset UTXO) goes when not to the seller's address: a co-signed listing's output. */
  unitScript?: Uint8Array;
}

export interface ComposedAttach {
  psbt_hex: string;
  expected_txid: string | null;
  signers: { address: string; inputs_to_sign: number[]; sighash: 'ALL' }[];
  inputs: string[];
  utxo_value_sats: number;
  fee_rate: number;
  network_fee_sats: number;
  protocol_fee_raw: string;
}

export async function composeAttach(ctx: Context, store: ListingStore, p: ComposeParams): Promise<ComposedAttach> {
  const network = ctx.config.NETWORK;
  const src = decodeAddress(p.source, network);
  const sel = decodeAddress(p.seller, network);
  if (!src.ok || !sel.ok) throw new Error('compose: addresses were checked by the route');
  const family = src.family as SourceFamily;

  // 1. Balances: the asset (and XCP for the fee) net of other open drafts' promises.
  const [balances, xcpFee, promised] = await Promise.all([
    ctx.chain.counterparty.getAddressBalances(p.source),
    ctx.chain.counterparty.estimateAttachXcpFee(),
    commitments(ctx, store, p.source, p.now, p.seller),
  ]);
  const held = addressLevel(balances);
  const fee = BigInt(xcpFee);
  const qty = BigInt(p.quantityRaw);
  const shortOf = (asset: string, needed: bigint, purpose: 'attach' | 'attach_fee') => {
    const h = held.get(asset) ?? 0n;
    const c = promised.byAsset.get(asset) ?? 0n;
    if (h - c >= needed) return;
    throw new ApiError('insufficient_asset_balance', `${p.source} cannot cover ${needed} ${asset} (${purpose}): holds ${h}, ${c} already committed to open drafts`, {
      asset,
      held_raw: h.toString(),
      committed_raw: c.toString(),
      needed_raw: needed.toString(),
      purpose,
    });
  };
  if (p.asset === XCP) shortOf(XCP, qty + fee, 'attach');
  else {
    shortOf(p.asset, qty, 'attach');
    if (fee > 0n) shortOf(XCP, fee, 'attach_fee');
  }

  // 2. Coins.
  const feeRate = await defaultFeeRate(ctx, p.feeRate);
  const coins = p.funding?.length ? await explicitCoins(ctx, p.source, family, p.funding) : await poolCoins(ctx, p.source, family, promised.drafts);
  if (p.sourceTapKey) for (const c of coins) c.tap_internal_key = p.sourceTapKey;
  const opReturn = attachOpReturn(coins[0]?.txid ?? '00'.repeat(32), p.asset, p.quantityRaw);
  const plan = planAttach({
    coins,
    feeRate,
    sellerScriptLen: (p.unitScript ?? sel.script).length,
    opReturnLen: opReturn.length,
    changeScriptLen: src.script.length,
    changeDust: DUST_SATS[family],
  });
  if ('short' in plan) {
    const shortfall = plan.need_sats - plan.have_sats;
    const base = { need_sats: plan.need_sats, have_sats: plan.have_sats, shortfall_sats: shortfall };
    if (!p.funding?.length && p.noFundingRetryable) {
      const confirming = (await ctx.chain.utxos.getAddressUtxos(p.source)).filter((u) => u.confirmations < 1);
      if (confirming.reduce((s, u) => s + u.value_sats, 0) >= shortfall) {
        throw new ApiError('insufficient_funds', `${p.source} has BTC that is still confirming; retry after the next block or pass the unconfirmed change as funding`, {
          ...base,
          reason: 'no_funding',
          retryable: true,
        });
      }
    }
    throw new ApiError('insufficient_funds', `asset-free BTC of ${p.source} cannot pay the attach`, base);
  }

  // 3. P2PKH inputs carry their whole previous transaction.
  for (const i of plan.inputs) {
    if (i.family !== 'p2pkh') continue;
    const prev = await ctx.chain.bitcoin.getTransaction(i.txid);
    if (!prev) throw new ApiError('state_changed', `funding ${i.txid}:${i.vout} is no longer known`);
    i.prev_tx_hex = prev.hex;
  }
  const built = buildAttachPsbt({
    plan,
    sellerScript: p.unitScript ?? sel.script,
    opReturn: attachOpReturn(plan.inputs[0]!.txid, p.asset, p.quantityRaw),
    changeScript: src.script,
  });
  return {
    psbt_hex: built.psbt_hex,
    expected_txid: built.expected_txid,
    signers: [{ address: p.source, inputs_to_sign: plan.inputs.map((_, k) => k), sighash: 'ALL' }],
    inputs: plan.inputs.map((i) => outpointKey(i.txid, i.vout)),
    utxo_value_sats: ASSET_UTXO_SATS,
    fee_rate: feeRate,
    network_fee_sats: plan.network_fee_sats,
    protocol_fee_raw: fee.toString(),
  };
}

/**
 * The caller's coins, by the coin owner's rules for named coins (src/trade/coins.ts), with the one
 * thing an attach allows beyond them: a coin still in the mempool (chaining on the change of a
 * previous attach). Counterparty shows no balance on such a coin yet, so the asset UTXOs of the
 * market's own attaches are refused by name.
 */
async function explicitCoins(ctx: Context, source: string, family: SourceFamily, funding: { txid: string; vout: number }[]): Promise<FundingInput[]> {
  const script = decodeAddress(source, ctx.config.NETWORK);
  if (!script.ok) throw new Error('unreachable');
  const pendingBalances = async (keys: string[]) => {
    const units = await ctx.store.db.selectFrom('listing_drafts').select('asset_outpoint').where('asset_outpoint', 'in', keys).execute();
    return new Set(units.flatMap((u) => (u.asset_outpoint ? [u.asset_outpoint] : [])));
  };
  const coins = await namedCoins(ctx, source, funding, { unconfirmed: { pendingBalances } });
  return coins.map((c) => ({ ...c, family, script: script.script }));
}

async function poolCoins(ctx: Context, source: string, family: SourceFamily, openDrafts: { status: string; attach_inputs: string | null }[]): Promise<FundingInput[]> {
  const script = decodeAddress(source, ctx.config.NETWORK);
  if (!script.ok) throw new Error('unreachable');
  const promised = new Set<string>();
  for (const d of openDrafts) {
    if (d.status === 'awaiting_attach_signature' && d.attach_inputs) for (const k of JSON.parse(d.attach_inputs) as string[]) promised.add(k);
  }
  // The coin owner's rules (src/trade/coins.ts), less the parsed-block one the attach never had.
  const coins = await spendableCoins(ctx, source, { parsedOnly: false, exclude: promised });
  return coins.map((u) => ({ txid: u.txid, vout: u.vout, value_sats: u.value_sats, family, script: script.script }));
}
