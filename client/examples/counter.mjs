// A counter: the seller answers a bid with a higher price; the bidder takes it; the seller accepts.
import { connect, inOneDay, print, sandboxAsset, sandboxCoins } from './connect.mjs';

const seller = await connect('SELLER_');
const bidder = await connect('BIDDER_');
const sandbox = seller.network === 'regtest';
if (sandbox) {
  await sandboxCoins(seller.market, seller.wallet.address);
  await sandboxCoins(bidder.market, bidder.wallet.address, 300_000);
  await sandboxCoins(bidder.market, bidder.wallet.address, 300_000);
  await sandboxAsset(seller.market, seller.wallet.address, '1').then((asset) => seller.market.prepareUnit({ asset, maxFeeSats: 5_000 }));
  await seller.market.devnet.confirm(3);
}
const unit = (await seller.market.http.call('GET /v1/inventory/prepared', {})).result.find((u) => !u.listing_id);
const asset_outpoint = { txid: unit.asset_utxo.txid, vout: unit.asset_utxo.vout };

const bid = await bidder.market.placeBids({ price_sats: 20_500, slots: 1, targets: [{ scope: 'asset', asset: unit.asset }], expires_at: inOneDay(), maxFeeSats: 5_000 });
if (sandbox) await bidder.market.devnet.confirm();

// Seller: counter the bid at 23,000 (counters beat the bid in 1,000-sat steps).
const c = await seller.market.counter({ offer_id: bid.funding_slots[0].offer_ids[0], asset_outpoint, price_sats: 23_000, expires_at: Math.floor(Date.now() / 1000) + 3600 });

// Bidder: its counters, then a bid at the counter's price naming the unit, then its authorization.
let mine;
for await (const r of bidder.market.counters()) if (r.id === c.id) mine = r;
const placed = await bidder.market.placeBids({ price_sats: mine.price_sats, slots: 1, targets: [{ scope: 'asset', asset: mine.asset, target_outpoint: mine.target_outpoint }], expires_at: inOneDay(), maxFeeSats: 5_000 });
if (sandbox) await bidder.market.devnet.confirm();
const slot = placed.funding_slots[0];
const auth = await bidder.market.authorizeExact({
  offer_id: slot.offer_ids[0], slot: { txid: slot.txid, vout: slot.vout }, price_sats: mine.price_sats,
  delivery_mode: 'detached', delivery_address: bidder.wallet.address, target_outpoint: mine.target_outpoint, maxFeeSats: 5_000,
});
const sold = await seller.market.acceptExact({ authorization_id: auth.authorization_id, target_outpoint: mine.target_outpoint, price_sats: mine.price_sats });
print({ counter_id: c.id, price_sats: sold.price_sats, txid: sold.txid });
