/**
 * Rotation: the move that voids an exposed listing's public half. The seller's
 * SINGLE|ANYONECANPAY signature commits to the asset outpoint; once that outpoint is spent it is
 * worthless. The market composes the spend for the seller:
 *
 *   in 0        the listed asset UTXO (Counterparty moves its balance to the first
 *               non-OP_RETURN output)
 *   in 1..n     asset-free confirmed BTC of the seller (funding.ts rules), largest first
 *   out 0       330 sats to the seller: the unit's new home
 *   out 1       change to the seller, when above dust
 *
 * Every input is signed ALL (DEFAULT on taproot) by the seller, so nobody can lift anything out
 * of it. The market verifies, journals (kind `rotation`, claiming every input: the outpoint is
 * no one else's while it is in flight) and relays it; when it confirms the listing ends
 * `rotated` and the unit, at out 0, can be listed again (a reuse preflight).
 */
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { equalBytes } from '@noble/curves/utils.js';
import type { Context } from '../../context.js';
import { ApiError } from '../../http/errors.js';
import { nowSeconds } from '../../clock.js';
import { decodeAddress } from '../../bitcoin/address.js';
import { READ_TX_OPTS } from '../../bitcoin/transaction.js';
import { extractFinalTransaction, verifyPsbt } from '../../bitcoin/psbt-verify.js';
import { ClaimLost, type SettlementHandlers } from '../../settlement/journal.js';
import { relayOutcomeError } from '../../settlement/outcome-error.js';
import { buyerCoins } from '../../trade/coins.js';
import { endListing, unrotateListing } from './lifecycle.js';
import type { ListingRow, ListingStore } from './store.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { ASSET_UTXO_SATS, DUST_SATS, estimateVsize, feeFor, type SourceFamily } from './templates.js';
import { outpointKey } from '../../trade/outpoints.js';

export interface RotationTemplate {
  listing_id: string;
  psbt_hex: string;
  expected_txid: string;
  signer_address: string;
  inputs_to_sign: number[];
  sighash: 'ALL';
  fee_rate: number;
  network_fee_sats: number;
  new_asset_utxo: { txid: string; vout: 0; utxo_value_sats: number };
}

const requireExposed = (l: ListingRow) => {
  if (l.state !== 'exposed') throw new ApiError('state_changed', `only an exposed listing is rotated; this one is ${l.state}`, { state: l.state });
};

export class Rotation {
  constructor(
    private readonly ctx: Context,
    private readonly store: ListingStore,
  ) {}

  private sellerOf(l: ListingRow): { script: Uint8Array; family: SourceFamily } {
    const d = decodeAddress(l.seller, this.ctx.config.NETWORK);
    if (!d.ok) throw new Error('rotation: the seller address was validated at listing');
    return { script: d.script, family: d.family as SourceFamily };
  }

  /** The unsigned rotation of an exposed listing's unit. */
  async compose(l: ListingRow, feeRateIn?: number): Promise<RotationTemplate> {
    requireExposed(l);
    const seller = this.sellerOf(l);
    const feeRate = feeRateIn ?? (await defaultFeeRate(this.ctx));
    const coins = await buyerCoins(this.ctx, l.seller);
    const unitValue = l.utxo_value_sats;
    const picked: typeof coins = [];
    let total = unitValue;
    let plan: { fee: number; change: number } | null = null;
    for (const c of [null, ...coins]) {
      if (c) {
        picked.push(c);
        total += c.value_sats;
      }
      const fams = [seller.family, ...picked.map(() => seller.family)];
      const feeChange = feeFor(estimateVsize(fams, [seller.script.length, seller.script.length]), feeRate);
      const change = total - ASSET_UTXO_SATS - feeChange;
      if (change >= DUST_SATS[seller.family]) {
        plan = { fee: feeChange, change };
        break;
      }
      const feeAlone = feeFor(estimateVsize(fams, [seller.script.length]), feeRate);
      if (total - ASSET_UTXO_SATS >= feeAlone) {
        plan = { fee: total - ASSET_UTXO_SATS, change: 0 };
        break;
      }
    }
    if (!plan) throw new ApiError('insufficient_funds', `asset-free confirmed BTC of ${l.seller} cannot pay the rotation`, { have_sats: total - unitValue });

    const tapKey = await this.tapKeyOf(l);
    const tx = new Transaction({ allowUnknownOutputs: true });
    const input = (txid: string, vout: number, value: number) => ({
      txid, index: vout, sequence: 0xfffffffd, witnessUtxo: { script: seller.script, amount: BigInt(value) }, ...(tapKey ? { tapInternalKey: tapKey } : {}),
    });
    tx.addInput(input(l.utxo_txid, l.utxo_vout, unitValue));
    for (const c of picked) tx.addInput(input(c.txid, c.vout, c.value_sats));
    tx.addOutput({ script: seller.script, amount: BigInt(ASSET_UTXO_SATS) });
    if (plan.change > 0) tx.addOutput({ script: seller.script, amount: BigInt(plan.change) });
    return {
      listing_id: l.id,
      psbt_hex: hex.encode(tx.toPSBT()),
      expected_txid: tx.id,
      signer_address: l.seller,
      inputs_to_sign: Array.from({ length: tx.inputsLength }, (_, i) => i),
      sighash: 'ALL',
      fee_rate: feeRate,
      network_fee_sats: plan.fee,
      new_asset_utxo: { txid: tx.id, vout: 0, utxo_value_sats: ASSET_UTXO_SATS },
    };
  }

  private async tapKeyOf(l: ListingRow): Promise<Uint8Array | null> {
    const d = await this.store.draft(l.draft_id);
    return d?.seller_tap_key ? hex.decode(d.seller_tap_key) : null;
  }

  /**
   * Verifies the seller's signed rotation (any shape that moves the unit to the seller's own
   * out 0, funded only by the seller's asset-free coins, every input signed ALL/DEFAULT by the
   * seller), journals and relays it. Answers the settlement's txid and where the unit goes.
   */
  async submit(l: ListingRow, psbtHex: string): Promise<{ listing_id: string; txid: string; status: 'broadcast'; new_asset_utxo: { txid: string; vout: 0 } }> {
    requireExposed(l);
    const seller = this.sellerOf(l);
    let unsigned: Transaction;
    try {
      unsigned = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
    } catch (e) {
      throw new ApiError('invalid_transaction', `body.psbt_hex is not a PSBT: ${(e as Error).message}`, { field: 'body.psbt_hex' });
    }
    const unit = outpointKey(l.utxo_txid, l.utxo_vout);
    const inputs = Array.from({ length: unsigned.inputsLength }, (_, i) => unsigned.getInput(i)).map((i) => outpointKey(hex.encode(i.txid!), i.index!));
    const mismatch = (why: string) => new ApiError('template_mismatch', `the rotation ${why}`, { field: 'body.psbt_hex' });
    if (inputs[0] !== unit) throw mismatch(`must spend the listed unit ${unit} as input 0`);
    if (new Set(inputs).size !== inputs.length) throw mismatch('spends an outpoint twice');
    const outputs = Array.from({ length: unsigned.outputsLength }, (_, i) => unsigned.getOutput(i));
    if (!outputs.length || !equalBytes(outputs[0]!.script!, seller.script)) throw mismatch('must pay output 0 to the seller, where Counterparty moves the unit');
    if (outputs.some((o) => o.script![0] === 0x6a)) throw mismatch('must carry no OP_RETURN (a Counterparty message would change where the unit goes)');
    const verified = verifyPsbt(psbtHex, inputs.map((_, index) => ({ index, sighash: 'DEFAULT_OR_ALL' as const, signer: { address: l.seller, network: this.ctx.config.NETWORK } })));
    if (!verified.ok) throw new ApiError('signature_invalid', verified.error, { field: 'body.psbt_hex' });
    const funding = inputs.slice(1);
    const carrying = funding.length ? await this.ctx.chain.counterparty.getUtxosWithBalances(funding) : new Set<string>();
    const bad = funding.find((f) => carrying.has(f));
    if (bad) throw mismatch(`funds itself with ${bad}, which carries a Counterparty balance (it would move too)`);
    const final = extractFinalTransaction(psbtHex);
    if (!final.ok) throw new ApiError('invalid_transaction', final.error, { field: 'body.psbt_hex' });

    const signed = { txid: final.txid, hex: final.hex };
    const existing = await this.ctx.journal.byTxid(this.store.db, signed.txid);
    const settlementId = existing?.id ?? (await this.journal(l, signed, inputs));
    const outcome = await this.ctx.journal.relay(settlementId);
    if (outcome.status !== 'relayed') throw relayOutcomeError(outcome, settlementId);
    return { listing_id: l.id, txid: signed.txid, status: 'broadcast', new_asset_utxo: { txid: signed.txid, vout: 0 } };
  }

  private async journal(l: ListingRow, signed: { txid: string; hex: string }, claims: string[]): Promise<string> {
    try {
      return await this.store.db.transaction().execute(async (tx) => (await this.ctx.journal.journal(tx, { kind: 'rotation', ref_id: l.id, txs: [signed], claims })).id);
    } catch (e) {
      if (e instanceof ClaimLost) throw new ApiError('conflict_spend', `rotation input ${e.outpoint} is already spent by another settlement`);
      throw e;
    }
  }
}

/**
 * The journal's reactions for kind `rotation`: confirmed → the exposed listing ends `rotated`
 * (the old half is void); unconfirmed by a reorg → exposed again; released → nothing (the
 * listing stays exposed; the seller rotates again). The watcher leaves a spend by the claiming
 * settlement to this handler.
 */
export function rotationHandlers(ctx: Pick<Context, 'clock'>): SettlementHandlers {
  return {
    onConfirmed: async (tx, s) => {
      const l = await tx.selectFrom('listings').selectAll().where('id', '=', s.ref_id).executeTakeFirst();
      if (l) await endListing(tx, l, 'rotated', nowSeconds(ctx.clock), ['exposed']);
    },
    onUnconfirmed: async (tx, s) => {
      await unrotateListing(tx, s.ref_id, nowSeconds(ctx.clock));
    },
  };
}
