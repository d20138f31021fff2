// A bid and its acceptance, both sides: the bidder funds a bid on an asset and authorizes it over
// the seller's unit; the seller finds it in its inbox and accepts. The unit goes to the bidder.
import { connect, inOneDay, print, sandboxAsset, sandboxCoins } from './connect.mjs';

const seller = await connect('SELLER_');
const bidder = await connect('BIDDER_');
const sandbox = seller.network === 'regtest';
if (sandbox) {
  await sandboxCoins(seller.market, seller.wallet.address);
  await sandboxCoins(bidder.market, bidder.wallet.address, 300_000);
  await sandboxAsset(seller.market, seller.wallet.address, '1').then((asset) => seller.market.prepareUnit({ asset, maxFeeSats: 5_000 }));
  await seller.market.devnet.confirm(3); // exact offers ask 3 confirmations of the unit
}
const unit = (await seller.market.http.call('GET /v1/inventory/prepared', {})).result.find((u) => !u.listing_id);
const target_outpoint = { txid: unit.asset_utxo.txid, vout: unit.asset_utxo.vout };

// Bidder: fund one slot at the price, placed over the asset.
const price_sats = 30_000;
const placed = await bidder.market.placeBids({ price_sats, slots: 1, targets: [{ scope: 'asset', asset: unit.asset }], expires_at: inOneDay(), maxFeeSats: 5_000 });
if (sandbox) await bidder.market.devnet.confirm(); // a bid is authorized once its funding confirms
const slot = placed.funding_slots[0];
const auth = await bidder.market.authorizeExact({
  offer_id: slot.offer_ids[0], slot: { txid: slot.txid, vout: slot.vout }, price_sats,
  delivery_mode: 'detached', delivery_address: bidder.wallet.address, target_outpoint, maxFeeSats: 5_000,
});

// Seller: the inbox row names the unit (target_outpoint) and the price; accept it.
let row;
for await (const r of seller.market.exactOffers()) if (r.authorization_id === auth.authorization_id) row = r;
const sold = await seller.market.acceptExact({ authorization_id: row.authorization_id, target_outpoint: row.target_outpoint, price_sats: row.price_sats, seller_min_net_sats: 20_000 });
print({ asset: unit.asset, authorization_id: auth.authorization_id, txid: sold.txid, price_sats: sold.price_sats });
