// List a unit already attached to one of the wallet's outputs (here: attached first with prepareUnit).
import { connect, inOneDay, print, sandboxAsset, sandboxCoins } from './connect.mjs';

const { market, wallet, network } = await connect();
if (network === 'regtest') {
  await sandboxCoins(market, wallet.address);
  const asset = await sandboxAsset(market, wallet.address, '1');
  await market.prepareUnit({ asset, maxFeeSats: 5_000 }); // attach to a fresh output of this wallet
  await market.devnet.confirm();
}
// The wallet's attached units, as inventory reads them.
const unit = (await market.http.call('GET /v1/inventory/prepared', {})).result.find((u) => !u.listing_id);
const listed = await market.list({
  asset_utxo: unit.asset_utxo, // the API's name, as inventory returns it
  asset: unit.asset,
  price_sats: Number(process.env.PRICE_SATS ?? 26_000),
  expires_at: inOneDay(),
  idempotency_key: `list-${unit.asset_utxo.txid}-${unit.asset_utxo.vout}`,
});
print({ listing_id: listed.id, state: listed.state, asset: unit.asset });
