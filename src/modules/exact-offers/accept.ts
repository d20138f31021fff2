/**
 * The seller's accept of an exact authorization.
 *
 * Preflight: the parent template (the seller signs input 1, ALL), and when the fee rate now needs
 * more than the parent carries, the CPFP child template (spending the seller's proceeds at
 * output 1) with the child fee the package needs: ceil(rate × (parent + child vsize)) − prefunded.
 *
 * Accept: the seller's input-1 signature is verified against the template byte for byte and the
 * bidder's stored input-0 signature merged in; a child, when needed, must spend output 1, be
 * version 3 and pay at least the required fee. Then in ONE database transaction the
 * authorization is used, the offer filled (siblings over the slot retired), the listing of the
 * asset outpoint (if listed) reserved, and the settlement journaled with claims on the funding
 * slot and the asset outpoint — the same claims checkout takes, so the first valid signature wins
 * across checkout, exact offers and policy accepts — with the fill. Only then is the package
 * submitted. The same bytes again answer `already_completed`.
 */
import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer/script.js';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, feeExceedsValue, notFound } from '../../http/errors.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { parsePsbt } from '../../bitcoin/psbt.js';
import { extractFinalTransaction, verifyPsbt } from '../../bitcoin/psbt-verify.js';
import { scriptFamily } from '../../bitcoin/address.js';
import type { Transaction } from '@scure/btc-signer';
import { SignerRefused, SignerUnavailable } from '../../signer/port.js';
import type { Tx } from '../../store/db.js';
import { cosignedUnitAt, cosignUnitInput, unitLeafSigner, type CosignedUnit } from '../listings/index.js';
import { checkInput0Sighash } from '../../counterparty/sighash-flag.js';
import { ClaimLost } from '../../settlement/journal.js';
import { completionAnswer, relayOutcomeError } from '../../settlement/outcome-error.js';
import { endedOn, isHeld } from '../../settlement/relay.js';
import { buyerSigned } from '../../trade/signed.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { claimListingAt } from '../listings/index.js';
import { recordFills } from '../../trade/fills.js';
import { fillOffer } from '../offers/index.js';
import { buildChild, childVsize, feeFor } from './compose.js';
import { useAuthorization } from '../offers/index.js';
import { authorizationStatus } from './view.js';
import type { ExactOfferTables } from '../offers/index.js';

type AuthRow = ExactOfferTables['exact_authorizations'];

async function ownAuthorization(ctx: Context, seller: string, id: string): Promise<AuthRow> {
  const a = await ctx.store.db.selectFrom('exact_authorizations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!a || a.seller !== seller) throw notFound('exact offer authorization');
  return a;
}

/** The package fee the current rate needs, and the child's share of it; 422 insufficient_funds when the proceeds cannot pay it. */
async function feeNeed(ctx: Context, a: AuthRow, feeRate?: number) {
  const rate = await defaultFeeRate(ctx, feeRate);
  const sellerScript = parseTemplate(a).getOutput(1).script!;
  const spend = scriptFamily(sellerScript) === 'p2tr' ? 'p2tr-key-explicit' : 'p2wpkh';
  const cv = childVsize(spend, sellerScript);
  const parentOnly = feeFor(a.parent_vsize, rate);
  const needsChild = Number(a.prefunded_fee_sats) < parentOnly;
  const childFee = needsChild ? feeFor(a.parent_vsize + cv, rate) - Number(a.prefunded_fee_sats) : 0;
  // The child pays its fee out of the seller's proceeds: a rate whose child would leave less
  // than dust (or a negative amount, a RangeError where the child is built) is refused here.
  const dust = DUST_LIMITS[scriptFamily(sellerScript) ?? 'p2wpkh'];
  if (needsChild && Number(a.seller_proceeds_sats) - childFee < dust) {
    throw feeExceedsValue('the bid no longer covers the package fee', {
      have_sats: Number(a.seller_proceeds_sats),
      need_sats: childFee + dust,
      fee_rate: rate,
      network_fee_sats: Number(a.prefunded_fee_sats) + childFee,
    });
  }
  return { rate, needsChild, childFee, childVsize: cv, sellerScript };
}

function parseTemplate(a: AuthRow) {
  const p = parsePsbt(a.psbt);
  if (!p.ok) throw new Error(`stored template of ${a.id} does not parse`);
  return p.tx;
}

/** A v3 transaction spending an unconfirmed non-v3 output is refused by TRUC: the slot must be confirmed. */
async function slotConfirmed(ctx: Context, a: AuthRow): Promise<boolean> {
  const [txid, vout] = a.slot_outpoint.split(':');
  // The chain's UTXO set, not the mempool's: a bidder's unconfirmed spend of the slot is a race
  // the settlement may lose on relay (state_changed with mempool_reason), not a reason to ask the bidder to act.
  const out = await ctx.chain.bitcoin.getTxOut(txid!, Number(vout), false);
  return !!out && out.confirmations >= 1;
}

function requireAcceptable(a: AuthRow, now: number): void {
  const status = authorizationStatus(a, now);
  if (status === 'expired') throw new ApiError('expired', 'the authorization expired');
  if (status !== 'active') throw new ApiError('offer_selection_unavailable', `the authorization is ${status}`, { authorization_id: a.id, state: status }, { status: 409 });
}

export async function acceptPreflight(ctx: Context, seller: string, id: string, body: { fee_rate?: number }) {
  const a = await ownAuthorization(ctx, seller, id);
  const now = nowSeconds(ctx.clock);
  requireAcceptable(a, now);
  const need = await feeNeed(ctx, a, body.fee_rate);
  const child = need.needsChild ? buildChild(a.parent_txid, Number(a.seller_proceeds_sats), need.sellerScript, need.childFee) : null;
  return {
    authorization_id: a.id,
    psbt_hex: a.psbt,
    expected_txid: a.parent_txid,
    inputs_to_sign: [1],
    sighash: 'ALL' as const,
    signer_address: a.seller,
    fee_rate: need.rate,
    prefunded_fee_sats: Number(a.prefunded_fee_sats),
    requires_cpfp: need.needsChild,
    cpfp: child ? { psbt_hex: child.psbt_hex, expected_txid: child.txid, inputs_to_sign: [0], sighash: 'ALL' as const, child_fee_sats: need.childFee } : null,
    price_sats: Number(a.price_sats),
    platform_fee_sats: Number(a.platform_fee_sats),
    network_fee_sats: Number(a.prefunded_fee_sats) + need.childFee,
    seller_proceeds_sats: Number(a.seller_proceeds_sats) - need.childFee,
    requires_buyer_action: !(await slotConfirmed(ctx, a)),
    delivery: { mode: a.delivery_mode, address: a.receive_address },
    unit_custody: parseTemplate(a).getInput(1).tapLeafScript?.length ? ('cosigned' as const) : ('address' as const),
    reserves_inventory: false as const,
  };
}

/**
 * Parent: the seller's input 1 from the body, the bidder's stored input 0, both verified. A
 * co-signed unit's input 1 carries the seller's leaf signature (DEFAULT or ALL by the seller key);
 * the market signer's comes at accept, with the claims held (cosignUnitInput).
 */
function mergedParent(ctx: Context, a: AuthRow, psbtHex: string, unit: CosignedUnit | null) {
  const merged = unit
    ? buyerSigned(psbtHex, a.psbt, [1], a.seller, ctx.config.NETWORK, { leaf: unitLeafSigner(unit, 1) })
    : buyerSigned(psbtHex, a.psbt, [1], a.seller, ctx.config.NETWORK);
  const bidder = parsePsbt(a.bidder_signed_psbt!);
  if (!bidder.ok) throw new Error('stored bidder signature does not parse');
  const b0 = bidder.tx.getInput(0);
  merged.updateInput(0, { ...(b0.partialSig ? { partialSig: b0.partialSig } : {}), ...(b0.tapKeySig ? { tapKeySig: b0.tapKeySig } : {}), ...(b0.tapInternalKey ? { tapInternalKey: b0.tapInternalKey } : {}), ...(b0.finalScriptWitness ? { finalScriptWitness: b0.finalScriptWitness } : {}) }, true);
  const v = verifyPsbt(merged, [{ index: 0, sighash: 'DEFAULT_OR_ALL', signer: { address: a.bidder, network: ctx.config.NETWORK } }]);
  if (!v.ok) throw new ApiError('offer_selection_unavailable', 'the bidder signature no longer verifies', { authorization_id: a.id }, { status: 409 });
  return merged;
}

/** The network parent: held to Counterparty's input-0 rule and to the authorized txid. */
function finalParent(a: AuthRow, merged: Transaction) {
  const final = extractFinalTransaction(merged);
  if (!final.ok) throw new ApiError('invalid_transaction', `body.psbt_hex: ${final.error}`, { field: 'body.psbt_hex' });
  const raw = RawTx.decode(final.tx);
  const input0 = checkInput0Sighash(raw.inputs[0]!.finalScriptSig, raw.witnesses?.[0] ?? []);
  if (!input0.ok) throw new ApiError('offer_selection_unavailable', `the bidder's input 0 would not be parsed by Counterparty: ${input0.reason}`, {}, { status: 409 });
  if (final.txid !== a.parent_txid) throw new ApiError('template_mismatch', `body.psbt_hex: txid ${final.txid}, expected ${a.parent_txid}`, { field: 'body.psbt_hex' });
  return { txid: final.txid, hex: final.hex };
}

/** The co-signed output the authorization's unit sits on, or null for a unit at the seller's address. */
async function authorizedUnit(ctx: Context, a: AuthRow): Promise<CosignedUnit | null> {
  if (!parseTemplate(a).getInput(1).tapLeafScript?.length) return null;
  const unit = await cosignedUnitAt(ctx.store.db, a.asset_outpoint, ctx.config.NETWORK);
  if (!unit) throw new Error(`authorization ${a.id} spends a leaf of an output that is not co-signed`);
  return unit;
}

/**
 * The market signer's co-signature over input 1 of this exact parent, under the authorization's
 * id, in the claim transaction: the signer's one decision per outpoint is shared with checkouts of
 * the unit's listing, so one fully signed spend of the unit exists at most.
 */
async function cosignAccept(ctx: Context, tx: Tx, a: AuthRow, unit: CosignedUnit, merged: Transaction): Promise<void> {
  try {
    await cosignUnitInput(ctx, tx, { decisionId: a.id, unit, merged, index: 1, expectedTxid: a.parent_txid });
  } catch (e) {
    if (e instanceof SignerRefused) throw new ApiError('offer_selection_unavailable', `the market signer refused to co-sign the co-signed unit: ${e.message}`, { authorization_id: a.id, refusal_code: e.code }, { status: 409 });
    if (e instanceof SignerUnavailable) throw new ApiError('service_unavailable', `co-signed units cannot be accepted now: ${e.message}`, { dependency: 'market_signer', retry_after_seconds: 5 });
    throw e;
  }
}

/** The child: exactly the composed shape (spends parent:1, v3, one output to the seller), signed by the seller, paying at least `need`. */
function signedChild(ctx: Context, a: AuthRow, psbtHex: string, minFee: number) {
  const field = 'body.cpfp_psbt_hex';
  const p = parsePsbt(psbtHex);
  if (!p.ok) throw new ApiError('invalid_transaction', `${field}: ${p.error}`, { field });
  const tx = p.tx;
  const in0 = tx.inputsLength === 1 ? tx.getInput(0) : undefined;
  const out0 = tx.outputsLength === 1 ? tx.getOutput(0) : undefined;
  const seller = parseTemplate(a).getOutput(1).script!;
  if (tx.version !== 3 || !in0?.txid || hex.encode(in0.txid) !== a.parent_txid || in0.index !== 1 || !out0?.script || hex.encode(out0.script) !== hex.encode(seller)) {
    throw new ApiError('template_mismatch', `${field}: the child must be version 3, spend output 1 of ${a.parent_txid} and pay the seller's own address`, { field });
  }
  if (!in0.witnessUtxo || in0.witnessUtxo.amount !== BigInt(a.seller_proceeds_sats) || hex.encode(in0.witnessUtxo.script) !== hex.encode(seller)) {
    throw new ApiError('template_mismatch', `${field}: input 0's prevout must be the parent's output 1`, { field });
  }
  const fee = Number(a.seller_proceeds_sats) - Number(out0.amount ?? 0n);
  if (fee < minFee) throw new ApiError('invalid_transaction', `${field}: the child pays ${fee} sats; the package needs at least ${minFee} from it at the current fee rate`, { field, required_child_fee_sats: minFee });
  const v = verifyPsbt(tx, [{ index: 0, sighash: 'DEFAULT_OR_ALL', signer: { address: a.seller, network: ctx.config.NETWORK } }]);
  if (!v.ok) throw new ApiError('signature_invalid', `${field}: ${v.error}`, { field });
  const final = extractFinalTransaction(tx);
  if (!final.ok) throw new ApiError('invalid_transaction', `${field}: ${final.error}`, { field });
  return { txid: final.txid, hex: final.hex, fee };
}

export async function accept(ctx: Context, seller: string, id: string, body: { psbt_hex: string; cpfp_psbt_hex?: string }) {
  const db = ctx.store.db;
  const a = await ownAuthorization(ctx, seller, id);
  const now = nowSeconds(ctx.clock);
  if (a.state === 'used' && a.settlement_id) return repeat(ctx, a, body.psbt_hex);
  requireAcceptable(a, now);
  const unit = await authorizedUnit(ctx, a);
  const merged = mergedParent(ctx, a, body.psbt_hex, unit);
  if (!(await slotConfirmed(ctx, a))) {
    throw new ApiError('state_changed', "the bidder's funding output is not confirmed yet; a version-3 settlement cannot spend it until it is", { requires_buyer_action: true });
  }
  const need = await feeNeed(ctx, a);
  // A plain unit's parent is final now; a co-signed one's once the market signer co-signed it.
  const plainParent = unit ? null : finalParent(a, merged);
  const parent = { txid: a.parent_txid };
  const child = body.cpfp_psbt_hex ? signedChild(ctx, a, body.cpfp_psbt_hex, need.childFee) : null;
  if (need.needsChild && !child) {
    throw new ApiError('invalid_request', `the fee rate now needs a CPFP child paying at least ${need.childFee} sats (see accept-preflight)`, { field: 'body.cpfp_psbt_hex', required_child_fee_sats: need.childFee });
  }
  const withChild = (p: { txid: string; hex: string }) => (child ? [p, { txid: child.txid, hex: child.hex }] : [p]);

  let settlementId: string;
  try {
    settlementId = await db.transaction().execute(async (tx) => {
      const offer = await tx.selectFrom('offers').selectAll().where('id', '=', a.offer_id).executeTakeFirst();
      if (!offer || !(await fillOffer(tx, offer, parent.txid, now))) throw new ApiError('offer_selection_unavailable', 'the offer can no longer be accepted (filled, cancelled, expired or retired)', { offer_id: a.offer_id }, { status: 409 });
      // The listing before the outpoint claims, in the order checkout takes them (listing rows, then
      // claims), so an accept and a checkout racing for one unit queue instead of deadlocking.
      const listingId = await claimListingAt(tx, a.asset_outpoint, now);
      const s = await ctx.journal.journalWith(tx, { kind: 'exact_offer', ref_id: a.id, claims: [a.slot_outpoint, a.asset_outpoint] }, async () => {
        if (unit) await cosignAccept(ctx, tx, a, unit, merged);
        return withChild(plainParent ?? finalParent(a, merged));
      });
      if (!(await useAuthorization(tx, a, s.id, parent.txid, listingId, now))) throw new ApiError('offer_selection_unavailable', 'the authorization changed meanwhile', { authorization_id: a.id }, { status: 409 });
      await recordFills(
        tx,
        [
          {
            settlement_id: s.id,
            txid: parent.txid,
            kind: 'offer',
            ref_id: a.offer_id,
            asset: a.asset,
            asset_longname: null,
            quantity_raw: a.quantity_raw,
            seller: a.seller,
            buyer: a.receive_address,
            payer: a.bidder,
            price_sats: Number(a.price_sats),
            platform_fee_sats: Number(a.platform_fee_sats),
            delivery_mode: a.delivery_mode,
            broadcast_at: now,
          },
        ],
        now,
      );
      return s.id;
    });
  } catch (e) {
    if (e instanceof ClaimLost) throw new ApiError('state_changed', `outpoint ${e.outpoint} is already claimed by another settlement (a checkout or another accept won)`, { outpoint: e.outpoint });
    // A failed lookup (the store is down) leaves the original error to answer.
    const refused = e instanceof ApiError ? null : await refusedBefore(ctx, child ? child.txid : a.parent_txid).catch(() => null);
    throw refused ?? e;
  }
  const outcome = await ctx.journal.relay(settlementId);
  // The parent is the trade: when it landed and only the seller's child was refused, the sale is on its way.
  const parentLanded = outcome.status === 'partial' && outcome.landed.includes(parent.txid);
  // Held (a wait-class refusal: the same bytes relay once an input confirms): 202, recovery relays it.
  const held = isHeld(outcome);
  if (outcome.status !== 'relayed' && !parentLanded && !held) throw relayOutcomeError(outcome, settlementId);
  return completionAnswer(await result(ctx, (await ownAuthorization(ctx, seller, id))!, false, child?.fee ?? 0));
}

/**
 * The parent is fixed by the bidder's authorization, so a seller who accepts again after a refusal
 * (the authorization is usable again once its settlement is released) signs the very bytes the
 * node refused, and the journal keeps one settlement per txid (sim day 9117: that insert failed
 * and the seller got a 500). Those bytes were judged: answer what the node said of them, as the
 * first answer did (a CPFP child makes new bytes, and a new settlement).
 */
async function refusedBefore(ctx: Context, txid: string): Promise<ApiError | null> {
  const prior = await ctx.journal.byTxid(ctx.store.db, txid);
  if (!prior || (prior.state !== 'rejected' && prior.state !== 'conflicted')) return null;
  const outcome = await ctx.journal.relay(prior.id);
  return outcome.status === 'relayed' ? null : relayOutcomeError(outcome, prior.id);
}

/** The same parent bytes again: the settlement as it stands; other bytes are refused. */
async function repeat(ctx: Context, a: AuthRow, psbtHex: string) {
  const s = await ctx.journal.byId(a.settlement_id!);
  let same = false;
  try {
    same = mergedParent(ctx, a, psbtHex, await authorizedUnit(ctx, a)).id === a.parent_txid && !!s;
  } catch {
    same = false;
  }
  if (!same) throw new ApiError('state_changed', 'the authorization was already accepted with other bytes', { authorization_id: a.id });
  const txs = JSON.parse(s!.txs) as Array<{ txid: string }>;
  // Relayed again while journaled; one released meanwhile answers how it ended, as the first answer did.
  const outcome = await ctx.journal.relay(s!.id);
  if (endedOn(outcome)) throw relayOutcomeError(outcome, s!.id);
  return completionAnswer(await result(ctx, a, true, txs.length > 1 ? null : 0));
}

async function result(ctx: Context, a: AuthRow, alreadyCompleted: boolean, childFee: number | null) {
  const s = a.settlement_id ? await ctx.journal.byId(a.settlement_id) : undefined;
  const txs = s ? (JSON.parse(s.txs) as Array<{ txid: string }>) : [];
  const childMember = s && txs.length > 1 ? (await ctx.journal.members(ctx.store.db, s.id)).find((m) => m.position === 1) : undefined;
  return {
    authorization_id: a.id,
    offer_id: a.offer_id,
    status: a.state,
    settlement_id: a.settlement_id,
    settlement_state: s?.state ?? null,
    hold: s ? ctx.journal.holdOf(s) : null,
    txid: a.parent_txid,
    child_txid: txs.length > 1 ? txs[1]!.txid : null,
    child_state: childMember?.state ?? null,
    child_reason: childMember?.reason ?? null,
    delivery: { mode: a.delivery_mode, address: a.receive_address },
    requires_buyer_action: false,
    already_completed: alreadyCompleted,
    price_sats: Number(a.price_sats),
    platform_fee_sats: Number(a.platform_fee_sats),
    prefunded_fee_sats: Number(a.prefunded_fee_sats),
    child_fee_sats: childFee,
    seller_proceeds_sats: Number(a.seller_proceeds_sats) - (childFee ?? 0),
  };
}
