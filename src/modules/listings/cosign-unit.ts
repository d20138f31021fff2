/**
 * A unit on a co-signed listing output, as every settlement that spends it sees it: a checkout of
 * its listing, an exact-offer accept and a collection-offer accept all spend it by its leaf
 * `<seller> CHECKSIGVERIFY <market> CHECKSIG`, so each needs the market signer's SIGHASH_DEFAULT
 * signature over the exact transaction it journals. The signer keeps one decision per outpoint
 * (src/signer/listing-decisions.ts), whichever flow asks: the first co-signature for a transaction
 * stands, another transaction is refused `listing_signed_other` unless the market shows the signed
 * one can no longer settle, and a delist recorded first refuses that listing for good. So the unit
 * has at most one fully signed live spend, whichever of the three claimed it first.
 */
import { hex } from '@scure/base';
import { equalBytes } from '@noble/curves/utils.js';
import type { Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import type { Context } from '../../context.js';
import type { Db, Tx } from '../../store/db.js';
import type { Network } from '../../bitcoin/networks.js';
import { psbtPrevouts } from '../../bitcoin/psbt.js';
import { scriptToAddress } from '../../bitcoin/address.js';
import { TAPSCRIPT_LEAF_VERSION, verifySchnorr } from '../../bitcoin/taproot.js';
import { cosignedWitness, type CosignedOutput } from '../../counterparty/cosigned-listing.js';
import { SignerRefused } from '../../signer/port.js';
import { cosignedOf } from './cosigned.js';

export interface CosignedUnit {
  outpoint: string;
  /** The seller's own (P2TR) address: the output's internal key is that address's key. */
  seller: string;
  output: CosignedOutput;
  /** The market signer's x-only key in the leaf, and its version. */
  marketKey: Uint8Array;
  keyVersion: number;
}

/** The co-signed output the market made at `outpoint` for a listing draft, or null for any other output. */
export async function cosignedUnitAt(db: Db | Tx, outpoint: string, network: Network): Promise<CosignedUnit | null> {
  const d = await db
    .selectFrom('listing_drafts')
    .select(['seller', 'seller_tap_key', 'protocol_subtype', 'cosign_market_key', 'cosign_key_version'])
    .where('asset_outpoint', '=', outpoint)
    .where('protocol_subtype', '=', 'cosigned')
    .executeTakeFirst();
  if (!d) return null;
  const output = cosignedOf({ ...d, seller_key: d.seller_tap_key }, network)!;
  return { outpoint, seller: d.seller, output, marketKey: hex.decode(d.cosign_market_key!), keyVersion: Number(d.cosign_key_version) };
}

/**
 * The address that holds the unit on `script` at `outpoint`: the seller of a co-signed listing
 * output (its internal key is that seller's key), else the script's own address.
 */
export async function unitHolder(db: Db | Tx, outpoint: string, script: Uint8Array, network: Network): Promise<string | undefined> {
  const cosigned = await cosignedUnitAt(db, outpoint, network);
  return cosigned && equalBytes(cosigned.output.script, script) ? cosigned.seller : scriptToAddress(script, network);
}

/** What input `index` of a signed PSBT spending `unit` must carry: the seller key's signature over the leaf. */
export const unitLeafSigner = (unit: CosignedUnit, index: number) => ({ index, key: unit.output.internalKey, leafHash: tapLeafHash(unit.output.leaf, TAPSCRIPT_LEAF_VERSION) });

/** The seller's leaf signature on input `index` of `tx`: by the seller key, over the co-signed leaf. */
function sellerLeafSignature(tx: Transaction, index: number, unit: CosignedUnit): Uint8Array | undefined {
  const want = unitLeafSigner(unit, index);
  return tx.getInput(index).tapScriptSig?.find(([k]) => equalBytes(k.leafHash, want.leafHash) && equalBytes(k.pubKey, want.key))?.[1];
}

/**
 * Whether the transaction `txid` that the signer co-signed before can no longer settle: its
 * settlement was refused or conflicted (an input spent elsewhere), or it was never journaled (the
 * market stopped between the co-signature and its commit; nobody else ever held that signature).
 * A package's parent is found inside its settlement's transactions (the row is named by the child).
 */
async function deadTransaction(tx: Tx, txid: string): Promise<boolean> {
  const s = await tx
    .selectFrom('settlements')
    .select('state')
    .where((eb) => eb.or([eb('txid', '=', txid), eb('txs', 'like', `%"txid":"${txid}"%`)]))
    .executeTakeFirst();
  return !s || s.state === 'rejected' || s.state === 'conflicted';
}

/**
 * The market signer's co-signature on input `index` of `merged` (which carries the seller's leaf
 * signature and every other input's prevout), asked under `decisionId` (the listing id for a
 * checkout, the authorization or accept id for an offer), checked, and the leaf's witness
 * completed [market, seller, leaf, control]. Call it with the outpoint's claim held (inside
 * `journalWith`): then no other settlement of the unit is in flight uncommitted, which is what
 * lets a dead earlier decision be superseded. Signer refusals and unavailability are thrown as
 * they are, for the caller to map to its contract.
 */
export async function cosignUnitInput(
  ctx: Context,
  tx: Tx,
  req: { decisionId: string; unit: CosignedUnit; merged: Transaction; index: number; expectedTxid: string },
): Promise<void> {
  const { unit, merged, index } = req;
  const o = unit.output;
  const ask = (supersedes?: string) =>
    ctx.signer.cosignListing({
      listing_id: req.decisionId,
      outpoint: unit.outpoint,
      tx_psbt_hex: hex.encode(merged.toPSBT()),
      input_index: index,
      leaf_script_hex: hex.encode(o.leaf),
      key_version: unit.keyVersion,
      ...(supersedes ? { supersedes_txid: supersedes } : {}),
    });
  let r;
  try {
    r = await ask();
  } catch (e) {
    const prior = e instanceof SignerRefused && e.code === 'listing_signed_other' ? e.extras.signed_txid : undefined;
    if (!prior || !(await deadTransaction(tx, prior))) throw e;
    r = await ask(prior);
  }
  // The signer is trusted to refuse, not to be right: its signature is checked before it is journaled.
  const { prevouts } = psbtPrevouts(merged);
  const digest = merged.preimageWitnessV1(index, prevouts.map((p) => p!.script), 0, prevouts.map((p) => p!.amount), undefined, o.leaf, TAPSCRIPT_LEAF_VERSION);
  const sig = hex.decode(r.signature);
  if (r.txid !== req.expectedTxid || !verifySchnorr(sig, digest, unit.marketKey)) {
    throw new Error(`market signer answered a bad co-signature for ${unit.outpoint} (${r.txid})`);
  }
  const sellerSig = sellerLeafSignature(merged, index, unit);
  if (!sellerSig) throw new Error(`${unit.outpoint}: no seller leaf signature on input ${index}`);
  merged.updateInput(index, { finalScriptWitness: cosignedWitness(o, sig, sellerSig) }, true);
}
