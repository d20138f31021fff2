// Attach a balance held at the wallet's address and list it, in one signed submission.
import { connect, inOneDay, print, sandboxAsset, sandboxCoins } from './connect.mjs';

const { market, wallet, network } = await connect();
let asset = process.env.ASSET;
if (network === 'regtest' && !asset) {
  await sandboxCoins(market, wallet.address);
  asset = await sandboxAsset(market, wallet.address, '1');
}
const draft = await market.attachAndList({
  asset,
  price_sats: Number(process.env.PRICE_SATS ?? 25_000),
  expires_at: inOneDay(),
  idempotency_key: `attach-and-list-${asset}`, // the same key never lists twice
  maxFeeSats: 5_000,
  wait: network === 'regtest' ? false : { intervalMs: 10_000 }, // on mainnet: until the attach confirms
  progress: (step) => console.error('step', step),
});
if (network === 'regtest') await market.devnet.confirm(); // the sandbox mines on request
const done = (await market.http.call('GET /v1/listing-preflights/{id}', { params: { id: draft.id } })).result;
print({ asset, draft_id: draft.id, status: done.status, listing_id: done.listing_id });
