/**
 * The seller's accept of a collection offer.
 *
 * Preflight (`POST /v1/policy-accepts/preflight`): the unit is checked (eligibility.ts), the best
 * live alternative it matches is chosen, and the unsigned version-3 child is built: the seller
 * pays the platform fee and the whole package's fee (the parent carries none). A quote reserves
 * nothing.
 *
 * Accept (`POST /v1/policy-accepts`): the seller's input-1 signature is verified against the
 * quote byte for byte. Then, in ONE database transaction: the funding set is filled (a guarded
 * UPDATE: a second accept of the same set, or a soft cancel of the alternative recorded first, loses here), the
 * unit's listing (if listed) reserved, the claims taken on every funding input, the anchor and
 * the unit's outpoint (the same claims checkout and exact accepts take: the first valid
 * signature wins) — and only with the claims held does the market signer co-sign (it refuses an
 * alternative whose cancel it recorded first: one linearized decision). The market wallet signs the
 * anchor, parent and child are journaled, and the package is submitted after the commit. A
 * crash before the commit leaves nothing but the signer's decision, which answers the same
 * signature again when the seller retries the same bytes; after it, recovery relays.
 */
import { hex } from '@scure/base';
import type { Context } from '../../context.js';
import { nowSeconds } from '../../clock.js';
import { ApiError, feeExceedsValue, notFound } from '../../http/errors.js';
import { addressToScript, decodeAddress, scriptFamily } from '../../bitcoin/address.js';
import type { Network } from '../../bitcoin/networks.js';
import { COSIGNED_LEAF_SPEND, leafScriptField } from '../../counterparty/cosigned-listing.js';
import { cosignedUnitAt, cosignUnitInput, unitLeafSigner, type CosignedUnit } from '../listings/index.js';
import { DUST_LIMITS } from '../../bitcoin/dust.js';
import { parsePsbt } from '../../bitcoin/psbt.js';
import { extractFinalTransaction } from '../../bitcoin/psbt-verify.js';
import { buildPolicyChild, escrowWitness, policyEscrow, POLICY_PROTOCOL_VERSION } from '../../counterparty/policy-offer.js';
import { ClaimLost } from '../../settlement/journal.js';
import { completionAnswer, relayOutcomeError } from '../../settlement/outcome-error.js';
import { endedOn, isHeld } from '../../settlement/relay.js';
import { requireAddressRole } from '../../http/address-rules.js';
import { buyerSigned } from '../../trade/signed.js';
import { marketFeeScript } from '../../trade/fee-address.js';
import { defaultFeeRate } from '../../trade/fee-rates.js';
import { claimListingAt } from '../listings/index.js';
import { platformFee, tapInternalKeyFor } from '../listings/index.js';
import { recordFills } from '../../trade/fills.js';
import { bestAlternative, requireConfirmedUnit, sellerUnit } from './eligibility.js';
import { estimateChildVsize } from './estimate.js';
import { createAcceptQuote, fillFundingSet, markAccepted, type FundingSetRow } from './lifecycle.js';
import { refused } from './refusals.js';
import { ACCEPT_QUOTE_TTL_S, newPolicyId } from './rules.js';
import { fundingOutpoints } from './view.js';
import type { MarketWallet } from './market-wallet.js';
import type { SignerGate } from './signer-gate.js';
import type { PolicyOfferTables } from './tables.js';

type AcceptRow = PolicyOfferTables['policy_accepts'];

export interface AcceptPreflightBody {
  parent_txid: string;
  asset_txid: string;
  asset_vout: number;
  fee_rate?: number;
  seller_min_net_sats?: number;
  seller_tap_internal_key?: string;
}

async function setByParent(ctx: Context, parentTxid: string): Promise<FundingSetRow> {
  const set = await ctx.store.db.selectFrom('policy_funding_sets').selectAll().where('parent_txid', '=', parentTxid).where('state', 'not in', ['awaiting_signatures', 'lapsed']).executeTakeFirst();
  if (!set) throw notFound('collection offer');
  return set;
}

function requireOpen(set: FundingSetRow): void {
  if (set.state !== 'open') throw refused('funding_set_closed', `this collection offer is ${set.state}`, { parent_txid: set.parent_txid, state: set.state }, 409);
}

/** Every funding input and the anchor still unspent (mempool included): else the bidder moved the money. */
async function fundingUnspent(ctx: Context, set: FundingSetRow): Promise<void> {
  const [atxid, avout] = set.anchor_outpoint.split(':');
  const outs = [...fundingOutpoints(set).map((f) => ({ txid: f.txid, vout: f.vout })), { txid: atxid!, vout: Number(avout) }];
  const found = await Promise.all(outs.map((o) => ctx.chain.bitcoin.getTxOut(o.txid, o.vout, true)));
  const gone = outs.findIndex((_, i) => !found[i]);
  if (gone !== -1) throw refused('funding_spent', `the offer's funding ${outs[gone]!.txid}:${outs[gone]!.vout} is spent: the bidder moved it (or cancelled on chain)`, { parent_txid: set.parent_txid }, 409);
}

export async function acceptPreflight(ctx: Context, gate: SignerGate, seller: string, body: AcceptPreflightBody) {
  await gate.require();
  const network = ctx.config.NETWORK;
  requireAddressRole(seller, 'signing', network, 'session address');
  const set = await setByParent(ctx, body.parent_txid);
  requireOpen(set);
  const now = nowSeconds(ctx.clock);
  const unit = await sellerUnit(ctx, seller, body.asset_txid, body.asset_vout);
  const offer = await bestAlternative(ctx, set.id, unit.asset, now);
  await fundingUnspent(ctx, set);
  const tapKey = tapInternalKeyFor(seller, body.seller_tap_internal_key, network, 'body.seller_tap_internal_key');

  const rate = await defaultFeeRate(ctx, body.fee_rate);
  const price = Number(offer.price_sats);
  const fee = platformFee(ctx.config, price);
  // A co-signed unit's proceeds go to the seller's own address, and its input is the leaf spend.
  const sellerScript = unit.cosigned ? addressToScript(seller, network)! : unit.script;
  const childVsize = estimateChildVsize(sellerScript, fee > 0, unit.cosigned ? COSIGNED_LEAF_SPEND : undefined);
  const parentVsize = Number(set.parent_vsize);
  const parentFee = fundingOutpoints(set).reduce((s, f) => s + f.value_sats, 0) - Number(set.escrow_value_sats) - changeOf(set);
  const networkFee = Math.max(1, Math.ceil((parentVsize + childVsize) * rate) - parentFee);
  const proceeds = price - fee - networkFee;
  const family = scriptFamily(sellerScript);
  if (!family || proceeds + unit.value_sats < DUST_LIMITS[family] || proceeds < 1) {
    const least = Math.max(1, (family ? DUST_LIMITS[family] : 330) - unit.value_sats);
    throw feeExceedsValue('the offer no longer covers the package fee and the platform fee', { have_sats: price, need_sats: fee + networkFee + least, fee_rate: rate, network_fee_sats: networkFee });
  }
  if (body.seller_min_net_sats !== undefined && proceeds < body.seller_min_net_sats) {
    throw refused('seller_net_below_minimum', `the seller would net ${proceeds} sats, below seller_min_net_sats ${body.seller_min_net_sats}`, { seller_proceeds_sats: proceeds, seller_min_net_sats: body.seller_min_net_sats });
  }
  const escrow = policyEscrow(hex.decode(set.bidder_key), hex.decode(set.market_key), network, Number(set.refund_csv_blocks));
  const dd = decodeAddress(set.delivery_address, network);
  if (!dd.ok) throw new Error('stored delivery address does not decode');
  const [txid, vout] = unit.outpoint.split(':');
  const child = buildPolicyChild({
    escrow,
    parentTxid: set.parent_txid,
    escrowValue: Number(set.escrow_value_sats),
    deliveryScript: dd.script,
    price,
    asset: { txid: txid!, vout: Number(vout), amount: BigInt(unit.value_sats), script: unit.script },
    sellerScript,
    sellerSats: proceeds + unit.value_sats,
    feeScript: marketFeeScript(ctx.config),
    platformFee: fee,
  });
  // The co-signed leaf only (no internal key: the key path is the seller's own way out, and the
  // market signer's co-signature is what completes the leaf); else the seller's key-path hint.
  if (unit.cosigned) child.updateInput(1, { tapLeafScript: leafScriptField(unit.cosigned.output) }, true);
  else if (tapKey) child.updateInput(1, { tapInternalKey: tapKey }, true);
  const row: AcceptRow = {
    id: newPolicyId('pa'),
    funding_set_id: set.id,
    offer_id: offer.id,
    seller,
    asset: unit.asset,
    quantity_raw: unit.quantity_raw,
    asset_outpoint: unit.outpoint,
    utxo_value_sats: unit.value_sats,
    psbt: hex.encode(child.toPSBT()),
    expected_txid: child.id,
    price_sats: price,
    platform_fee_sats: fee,
    network_fee_sats: networkFee,
    seller_proceeds_sats: proceeds,
    fee_rate: rate,
    parent_vsize: parentVsize,
    child_vsize: childVsize,
    state: 'quoted',
    settlement_id: null,
    listing_id: null,
    created_at: now,
    expires_at: now + ACCEPT_QUOTE_TTL_S,
    updated_at: now,
  };
  await createAcceptQuote(ctx.store.db, row);
  return quoteView(row, set, family === 'p2tr' ? 'DEFAULT' : 'ALL');
}

function changeOf(set: FundingSetRow): number {
  const p = parsePsbt(set.parent_psbt);
  if (!p.ok) throw new Error(`stored parent of ${set.id} does not parse`);
  return p.tx.outputsLength > 2 ? Number(p.tx.getOutput(2).amount ?? 0n) : 0;
}

function quoteView(a: AcceptRow, set: FundingSetRow, sighash: 'DEFAULT' | 'ALL') {
  const [txid, vout] = a.asset_outpoint.split(':');
  return {
    protocol_version: POLICY_PROTOCOL_VERSION,
    accept_id: a.id,
    status: a.state,
    offer_id: a.offer_id,
    parent_txid: set.parent_txid,
    funding_slot_id: set.id,
    seller: a.seller,
    asset: a.asset,
    quantity_raw: a.quantity_raw,
    asset_outpoint: { txid: txid!, vout: Number(vout) },
    utxo_value_sats: Number(a.utxo_value_sats),
    psbt_hex: a.psbt,
    expected_txid: a.expected_txid,
    price_sats: Number(a.price_sats),
    offer_value_sats: Number(set.escrow_value_sats),
    platform_fee_sats: Number(a.platform_fee_sats),
    network_fee_sats: Number(a.network_fee_sats),
    seller_proceeds_sats: Number(a.seller_proceeds_sats),
    parent_vsize: Number(a.parent_vsize),
    child_vsize: Number(a.child_vsize),
    package_vsize: Number(a.parent_vsize) + Number(a.child_vsize),
    fee_rate: Number(a.fee_rate),
    delivery: { mode: 'attached' as const, address: set.delivery_address, value_sats: Number(set.escrow_value_sats) - Number(a.price_sats) },
    signing: { signer_address: a.seller, inputs_to_sign: [1], sighash },
    intent: {
      type: 'accept_policy_offer' as const,
      protocol_version: POLICY_PROTOCOL_VERSION,
      parent_txid: set.parent_txid,
      asset: a.asset,
      asset_outpoint: { txid: txid!, vout: Number(vout) },
      seller_proceeds_sats: Number(a.seller_proceeds_sats),
      seller_address: a.seller,
    },
    wallet_request: { method: 'signPsbt' as const, psbt_hex: a.psbt, inputs_to_sign: [{ address: a.seller, signing_indexes: [1], sighash }] },
    expires_at: Number(a.expires_at),
    reserves_inventory: false as const,
  };
}

export interface AcceptBody {
  accept_id: string;
  psbt_hex: string;
}

async function ownQuote(ctx: Context, seller: string, id: string): Promise<AcceptRow> {
  const a = await ctx.store.db.selectFrom('policy_accepts').selectAll().where('id', '=', id).executeTakeFirst();
  if (!a || a.seller !== seller) throw notFound('collection-offer accept quote');
  return a;
}

/** The co-signed output the quoted unit sits on, or null for a unit at the seller's address. */
async function quotedUnit(ctx: Context, q: AcceptRow): Promise<CosignedUnit | null> {
  const p = parsePsbt(q.psbt);
  if (!p.ok) throw new Error(`stored accept quote ${q.id} does not parse`);
  if (!p.tx.getInput(1).tapLeafScript?.length) return null;
  const unit = await cosignedUnitAt(ctx.store.db, q.asset_outpoint, ctx.config.NETWORK);
  if (!unit) throw new Error(`accept quote ${q.id} spends a leaf of an output that is not co-signed`);
  return unit;
}

/**
 * The quote with the seller's verified input-1 signature: by its address key (finalized here),
 * or on a co-signed unit by the seller key over the leaf (completed by the market signer's
 * co-signature once the claims are held).
 */
function signedChild(q: AcceptRow, psbtHex: string, unit: CosignedUnit | null, network: Network) {
  // buyerSigned merges input 1 final (the witness it verified); a finalizer run again would throw.
  if (!unit) return buyerSigned(psbtHex, q.psbt, [1], q.seller, network);
  return buyerSigned(psbtHex, q.psbt, [1], q.seller, network, { leaf: unitLeafSigner(unit, 1) });
}

/** The parent with the bidder's stored signatures and the market wallet's anchor signature, final. */
function signedParent(set: FundingSetRow, wallet: MarketWallet) {
  const p = parsePsbt(set.parent_signed_psbt!);
  if (!p.ok) throw new Error(`stored signed parent of ${set.id} does not parse`);
  const tx = p.tx;
  const n = fundingOutpoints(set).length;
  // Placement stores the bidder's inputs final already (buyerSigned merges final fields); a
  // finalizer run again over a final P2TR input throws ("unknown input"), so only partial ones are.
  for (let i = 0; i < n; i++) {
    const input = tx.getInput(i);
    if (!input.finalScriptWitness?.length && !input.finalScriptSig?.length) tx.finalizeIdx(i);
  }
  wallet.sign(tx, [n]);
  const final = extractFinalTransaction(tx);
  if (!final.ok) throw new Error(`parent of ${set.id}: ${final.error}`);
  if (final.txid !== set.parent_txid) throw new Error(`parent of ${set.id} has txid ${final.txid}, expected ${set.parent_txid}`);
  return { txid: final.txid, hex: final.hex };
}

export async function accept(ctx: Context, gate: SignerGate, wallet: MarketWallet, seller: string, body: AcceptBody) {
  const db = ctx.store.db;
  await gate.require();
  const q = await ownQuote(ctx, seller, body.accept_id);
  const network = ctx.config.NETWORK;
  if (q.state === 'accepted') return repeat(ctx, q, body.psbt_hex);
  const now = nowSeconds(ctx.clock);
  if (Number(q.expires_at) <= now) throw new ApiError('expired', 'the accept quote expired; preflight again', { accept_id: q.id });
  const unit = await quotedUnit(ctx, q);
  const merged = signedChild(q, body.psbt_hex, unit, network);
  const set = await db.selectFrom('policy_funding_sets').selectAll().where('id', '=', q.funding_set_id).executeTakeFirstOrThrow();
  requireOpen(set);
  const offer = await db.selectFrom('policy_offers').selectAll().where('id', '=', q.offer_id).executeTakeFirstOrThrow();
  const assetOut = await ctx.chain.bitcoin.getTxOut(q.asset_outpoint.split(':')[0]!, Number(q.asset_outpoint.split(':')[1]), true);
  if (!assetOut) throw new ApiError('state_changed', `the unit ${q.asset_outpoint} was spent meanwhile`, { outpoint: q.asset_outpoint });
  // Refused as the quote would be, before anything is claimed or journaled.
  requireConfirmedUnit(assetOut, q.asset_outpoint);
  await fundingUnspent(ctx, set);
  const escrow = policyEscrow(hex.decode(set.bidder_key), hex.decode(set.market_key), network, Number(set.refund_csv_blocks));
  const parent = signedParent(set, wallet);
  const claims = [...fundingOutpoints(set).map((f) => `${f.txid}:${f.vout}`), set.anchor_outpoint, q.asset_outpoint];

  let settlementId: string;
  try {
    settlementId = await db.transaction().execute(async (tx) => {
      if (!(await fillFundingSet(tx, set, offer, q.id, q.expected_txid, now))) throw refused('funding_set_closed', 'the collection offer was filled, cancelled or ended meanwhile', { parent_txid: set.parent_txid }, 409);
      // The listing before the outpoint claims, in the order checkout takes them.
      const listingId = await claimListingAt(tx, q.asset_outpoint, now);
      const s = await ctx.journal.journalWith(tx, { kind: 'policy_accept', ref_id: q.id, claims }, async () => {
        const co = await gate.call(() =>
          ctx.signer.cosign({ parent_txid: set.parent_txid, offer_id: offer.id, child_psbt_hex: hex.encode(merged.toPSBT()), input_index: 0, leaf_script_hex: hex.encode(escrow.leaf), key_version: Number(set.market_key_version) }),
        );
        if (co.child_txid !== q.expected_txid) throw new Error(`signer co-signed ${co.child_txid}, expected ${q.expected_txid}`);
        ctx.failpoint('policy-accept-after-cosign');
        merged.updateInput(0, { finalScriptWitness: escrowWitness(escrow, hex.decode(co.signature), hex.decode(offer.presignature)) }, true);
        // The unit's leaf after the escrow: a soft cancel recorded first refuses above, before the
        // unit's decision is taken, so a cancelled offer never holds a co-signature of the unit.
        if (unit) await gate.call(() => cosignUnitInput(ctx, tx, { decisionId: q.id, unit, merged, index: 1, expectedTxid: q.expected_txid }));
        const child = extractFinalTransaction(merged);
        if (!child.ok) throw new ApiError('invalid_transaction', `body.psbt_hex: ${child.error}`, { field: 'body.psbt_hex' });
        if (child.txid !== q.expected_txid) throw new ApiError('template_mismatch', `body.psbt_hex: txid ${child.txid}, expected ${q.expected_txid}`, { field: 'body.psbt_hex' });
        return [parent, { txid: child.txid, hex: child.hex }];
      });
      await markAccepted(tx, q.id, s.id, listingId, now);
      await recordFills(
        tx,
        [
          {
            settlement_id: s.id,
            txid: q.expected_txid,
            kind: 'offer',
            ref_id: offer.id,
            asset: q.asset,
            asset_longname: null,
            quantity_raw: q.quantity_raw,
            seller,
            buyer: set.delivery_address,
            payer: set.bidder,
            price_sats: Number(q.price_sats),
            platform_fee_sats: Number(q.platform_fee_sats),
            delivery_mode: 'attached',
            broadcast_at: now,
          },
        ],
        now,
      );
      return s.id;
    });
  } catch (e) {
    if (e instanceof ClaimLost) throw new ApiError('state_changed', `outpoint ${e.outpoint} is already claimed by another settlement (a checkout or another accept won)`, { outpoint: e.outpoint });
    throw e;
  }
  ctx.failpoint('policy-accept-after-journal');
  const outcome = await ctx.journal.relay(settlementId);
  // Held (a wait-class refusal of bytes the signer will not make again): journaled, like an unknown outcome.
  const held = isHeld(outcome);
  if (outcome.status !== 'relayed' && outcome.status !== 'unknown' && !held) throw relayOutcomeError(outcome, settlementId);
  return completionAnswer(await acceptedView(ctx, await ownQuote(ctx, seller, q.id), false));
}

/** The same signed bytes again: the settlement as it stands (relayed again if still journaled); other bytes are refused. */
async function repeat(ctx: Context, q: AcceptRow, psbtHex: string) {
  let same = false;
  try {
    signedChild(q, psbtHex, await quotedUnit(ctx, q), ctx.config.NETWORK);
    const s = await ctx.journal.byId(q.settlement_id!);
    const child = s ? (JSON.parse(s.txs) as Array<{ txid: string; hex: string }>)[1] : undefined;
    same = !!child && child.txid === q.expected_txid;
  } catch {
    same = false;
  }
  if (!same) throw new ApiError('state_changed', 'this quote was already accepted with other bytes', { accept_id: q.id });
  // Relayed again while journaled; an ended one answers how it ended, as the first answer did.
  const outcome = await ctx.journal.relay(q.settlement_id!);
  if (endedOn(outcome)) throw relayOutcomeError(outcome, q.settlement_id!);
  return completionAnswer(await acceptedView(ctx, q, true));
}

export async function acceptedView(ctx: Context, q: AcceptRow, alreadyCompleted: boolean) {
  const s = q.settlement_id ? await ctx.journal.byId(q.settlement_id) : undefined;
  const set = await ctx.store.db.selectFrom('policy_funding_sets').select(['parent_txid', 'delivery_address', 'escrow_value_sats']).where('id', '=', q.funding_set_id).executeTakeFirstOrThrow();
  return {
    protocol_version: POLICY_PROTOCOL_VERSION,
    accept_id: q.id,
    status: q.state,
    offer_id: q.offer_id,
    funding_set_id: q.funding_set_id,
    parent_txid: set.parent_txid,
    txid: q.expected_txid,
    settlement_id: q.settlement_id,
    settlement_state: s?.state ?? null,
    hold: s ? ctx.journal.holdOf(s) : null,
    listing_id: q.listing_id,
    asset: q.asset,
    asset_outpoint: { txid: q.asset_outpoint.split(':')[0]!, vout: Number(q.asset_outpoint.split(':')[1]) },
    delivery: { mode: 'attached' as const, address: set.delivery_address, value_sats: Number(set.escrow_value_sats) - Number(q.price_sats) },
    price_sats: Number(q.price_sats),
    platform_fee_sats: Number(q.platform_fee_sats),
    network_fee_sats: Number(q.network_fee_sats),
    seller_proceeds_sats: Number(q.seller_proceeds_sats),
    already_completed: alreadyCompleted,
  };
}
