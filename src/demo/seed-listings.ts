/**
 * The demo market's live listings. Units of the demo wallets are listed through the market's
 * own services, the code paths a wallet's requests take, signed with the published demo keys:
 *
 * - mode=attach: a listing preflight, its attach PSBT signed ALL and its listing half signed
 *   SINGLE|ANYONECANPAY, submitted together (attach-and-list);
 * - mode=reuse: a unit attached outside the market first (a plain signed attach, as a wallet
 *   composing with Counterparty would make), mined, then a reuse preflight and a signed listing.
 *
 * Two of bob's attach-mode listings are co-signed (protocol_subtype `cosigned`), beside plain ones.
 *
 * One block then confirms the attaches and a sync makes every listing active and public.
 * Re-running after a crash is safe: preflights carry idempotency keys, a listed draft is
 * skipped, and a unit already attached alone on a UTXO of its owner is reused, not attached again.
 */
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import type { Context } from '../context.js';
import type { DevnetControl } from '../chain/devnet-control.js';
import { nowSeconds } from '../clock.js';
import { READ_TX_OPTS } from '../bitcoin/transaction.js';
import { attachOutputScript } from '../counterparty/attach-detach.js';
import { ListingStore } from '../modules/listings/store.js';
import { PreflightService, type PreflightInput } from '../modules/listings/preflight.js';
import { AttachSubmission } from '../modules/listings/attach-submit.js';
import { submitListing } from '../modules/listings/listing-submit.js';
import { findReusableUtxo } from '../modules/listings/reuse.js';
import { SINGLE_ANYONECANPAY } from '../modules/listings/rules.js';
import { demoOwnerOf, type DemoSigner } from './wallets.js';
import { outpointKey } from '../trade/outpoints.js';

export interface DemoListing {
  asset: string;
  price_sats: number;
  mode: 'attach' | 'reuse';
  /** Co-signed (bob, P2TR): the unit attached straight to the co-signed output, the half over its leaf. */
  cosigned?: true;
}

/**
 * Two to four units per collection at believable, varied asks, from all three wallets (bob is
 * P2TR). Owners follow the issuance (demoOwnerOf); each wallet has three coins, so at most
 * three attaches of one wallet share a block.
 */
export const DEMO_LISTINGS: readonly DemoListing[] = [
  { asset: 'PEPEGENESIS', price_sats: 1_250_000, mode: 'attach' },
  { asset: 'PEPEMOON', price_sats: 85_000, mode: 'attach', cosigned: true },
  { asset: 'PEPECASH', price_sats: 42_000, mode: 'attach' },
  { asset: 'PEPEDIAMOND', price_sats: 2_000_000, mode: 'reuse' },
  { asset: 'FAKEASF', price_sats: 150_000, mode: 'attach', cosigned: true },
  { asset: 'FAKEDREAM', price_sats: 690_000, mode: 'attach' },
  { asset: 'FAKEORACLE', price_sats: 33_000, mode: 'attach' },
  { asset: 'SOGFIRE', price_sats: 20_000, mode: 'attach' },
  { asset: 'SOGWATER', price_sats: 27_500, mode: 'attach' },
  { asset: 'SOGDRAGON', price_sats: 480_000, mode: 'reuse' },
];

/** Demo listings stay up for 30 days. */
const LISTING_TTL_S = 30 * 86400;
/** The fee a plain demo attach pays (about 10 sat/vB). */
const PLAIN_ATTACH_FEE_SATS = 2_000n;
const UNIT_SATS = 330n;

/** Signs `inputs` of a PSBT with the demo key and `sighash` (what the wallet would do). */
export function signPsbt(psbtHex: string, w: DemoSigner, inputs: number[], sighash: number): string {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), READ_TX_OPTS);
  for (const i of inputs) {
    // A co-signed half offers only its leaf: adding the key path would make the wallet sign it too.
    if (w.family === 'p2tr' && !tx.getInput(i).tapInternalKey && !tx.getInput(i).tapLeafScript?.length) tx.updateInput(i, { tapInternalKey: w.xOnly }, true);
    tx.updateInput(i, { sighashType: sighash }, true);
    if (!tx.signIdx(w.privateKey, i, [sighash])) throw new Error(`demo seed: could not sign input ${i} for ${w.label}`);
  }
  return hex.encode(tx.toPSBT());
}

/** Attaches one unit of `asset` to a new 330-sat output of `w`, outside the market; returns its outpoint (unconfirmed). */
async function attachOutside(ctx: Context, devnet: DevnetControl, w: DemoSigner, asset: string): Promise<{ txid: string; vout: number }> {
  const utxos = (await devnet.addressUtxos(w.address)).filter((u) => u.confirmations > 0 && BigInt(u.value_sats) >= 10_000n);
  const carrying = await ctx.chain.counterparty.getUtxosWithBalances(utxos.map((u) => outpointKey(u.txid, u.vout)));
  const claimed = await ctx.journal.claimed(ctx.store.db, utxos.map((u) => outpointKey(u.txid, u.vout)));
  const coin = utxos
    .filter((u) => !carrying.has(outpointKey(u.txid, u.vout)) && !claimed.has(outpointKey(u.txid, u.vout)))
    .sort((a, b) => b.value_sats - a.value_sats)[0];
  if (!coin) throw new Error(`demo seed: ${w.label} has no asset-free coin to attach ${asset}`);
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({
    txid: coin.txid,
    index: coin.vout,
    witnessUtxo: { script: w.script, amount: BigInt(coin.value_sats) },
    ...(w.family === 'p2tr' ? { tapInternalKey: w.xOnly } : {}),
  });
  tx.addOutput({ script: w.script, amount: UNIT_SATS });
  tx.addOutput({ script: attachOutputScript({ input0Txid: coin.txid, asset, quantity: 1n, destinationVout: 0 }), amount: 0n });
  tx.addOutput({ script: w.script, amount: BigInt(coin.value_sats) - UNIT_SATS - PLAIN_ATTACH_FEE_SATS });
  tx.sign(w.privateKey);
  tx.finalize();
  return { txid: await ctx.chain.bitcoin.broadcast(tx.hex), vout: 0 };
}

/** The id of the demo listing of `asset` (made by this phase), or undefined before it is listed. */
export async function demoListingId(store: ListingStore, asset: string, signers: DemoSigner[]): Promise<string | undefined> {
  return (await store.byIdempotencyKey(demoOwnerOf(asset, signers).address, demoListingKey(asset)))?.listing_id ?? undefined;
}

const demoListingKey = (asset: string) => `demo-${asset.toLowerCase()}`;

/** Lists the demo units; returns how many listings were made. */
export async function seedDemoListings(ctx: Context, devnet: DevnetControl, signers: DemoSigner[]): Promise<number> {
  const store = new ListingStore(ctx.store.db);
  const preflights = new PreflightService(ctx, store);
  const attaches = new AttachSubmission(ctx, store);
  const plan = DEMO_LISTINGS.map((l) => ({ ...l, owner: demoOwnerOf(l.asset, signers), key: demoListingKey(l.asset) }));
  const todo = [];
  for (const p of plan) {
    const prior = await store.byIdempotencyKey(p.owner.address, p.key);
    if (!prior?.listing_id) todo.push(p);
  }

  // Units to reuse are attached outside the market first, and confirmed.
  const reused = new Map<string, { txid: string; vout: number }>();
  for (const p of todo.filter((x) => x.mode === 'reuse')) {
    const found = await findReusableUtxo(ctx, store, p.owner.address, p.asset, '1');
    reused.set(p.asset, found ?? (await attachOutside(ctx, devnet, p.owner, p.asset)));
  }
  if (reused.size) await devnet.mine(1);

  const expiresAt = nowSeconds(ctx.clock) + LISTING_TTL_S;
  for (const p of todo) {
    const w = p.owner;
    const input: PreflightInput = {
      seller: w.address,
      asset: p.asset,
      quantity_raw: '1',
      mode: p.mode,
      price_sats: p.price_sats,
      idempotency_key: p.key,
      ...(p.cosigned ? { protocol_subtype: 'cosigned' as const } : {}),
      ...(p.mode === 'reuse' ? { asset_utxo: reused.get(p.asset)! } : {}),
      ...(w.family === 'p2tr' ? { seller_tap_internal_key: hex.encode(w.xOnly), ...(p.mode === 'attach' ? { asset_source_tap_internal_key: hex.encode(w.xOnly) } : {}) } : {}),
    };
    const view = await preflights.create(w.address, input, 'listing');
    const d = (await store.draft(view.id))!;
    if (!view.listing) throw new Error(`demo seed: no listing template for ${p.asset}`);
    const listing = { psbt_hex: signPsbt(view.listing.psbt_hex, w, [0], SINGLE_ANYONECANPAY), expires_at: expiresAt };
    if (p.mode === 'reuse') {
      await submitListing(ctx, store, d, listing);
    } else {
      if (!view.attach) throw new Error(`demo seed: no attach template for ${p.asset}`);
      const inputs = view.attach.signers.flatMap((s) => s.inputs_to_sign);
      await attaches.submit(d, signPsbt(view.attach.psbt_hex, w, inputs, SigHash.ALL), listing);
    }
  }
  if (todo.some((p) => p.mode === 'attach')) await devnet.mine(1);
  await ctx.sync();
  return todo.length;
}
