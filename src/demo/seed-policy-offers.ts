/**
 * The demo's collection offers: the anchor pool filled and confirmed, then carol bids on
 * rare-pepes with two alternatives (any card, and the 2016 cards of supply ≤ 300 for more),
 * signed with her regtest key through the same preflight and placement the API serves.
 */
import { schnorr } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { SigHash } from '@scure/btc-signer';
import type { Context } from '../context.js';
import type { DevnetControl } from '../chain/devnet-control.js';
import { nowSeconds } from '../clock.js';
import { anchorPool, marketWallet } from '../modules/policy-offers/manifest.js';
import { preflight } from '../modules/policy-offers/preflight.js';
import { place } from '../modules/policy-offers/place.js';
import { SignerGate } from '../modules/policy-offers/signer-gate.js';
import { signPsbt } from './seed-listings.js';
import type { DemoSigner } from './wallets.js';

const OFFER_TTL_S = 30 * 24 * 60 * 60;

/** Places the demo collection offer; returns how many alternatives went live. */
export async function seedDemoPolicyOffers(ctx: Context, devnet: DevnetControl, signers: DemoSigner[]): Promise<number> {
  await anchorPool(ctx).refill();
  await devnet.mine(1);
  await ctx.sync();
  const carol = signers.find((s) => s.label === 'carol')!;
  const gate = new SignerGate(ctx);
  const pf = await preflight(ctx, gate, await marketWallet(ctx), carol.address, {
    targets: [
      { scope: 'collection', collection: 'rare-pepes', price_sats: 30_000 },
      { scope: 'collection', collection: 'rare-pepes', max_supply_units: 300, issued_year: 2016, price_sats: 45_000 },
    ],
    bidder_pubkey: hex.encode(carol.xOnly),
    expires_at: nowSeconds(ctx.clock) + OFFER_TTL_S,
  }, 'demo-seed');
  const { set } = await place(ctx, gate, carol.address, {
    funding_set_id: pf.funding_set_id,
    parent_psbt_hex: signPsbt(pf.parent.psbt_hex, carol, pf.parent.signing.inputs_to_sign, SigHash.ALL),
    presignatures: pf.alternatives.map((a) => ({
      index: a.index,
      signature_hex: hex.encode(new Uint8Array([...schnorr.sign(hex.decode(a.child_template.digest_hex), carol.privateKey), a.child_template.sighash_type])),
    })),
  });
  await ctx.sync();
  return set.state === 'open' ? pf.alternatives.length : 0;
}
