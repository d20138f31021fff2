// What every example shares: the market from MARKET_URL, a wallet from MNEMONIC (or WIF), signed in.
// On a real market set NETWORK=mainnet; the client refuses a market on another network.
import { MarketClient, fromMnemonic, fromWif } from '@counterparty-marketplace/client';

export async function connect(prefix = '') {
  const market = new MarketClient({ baseUrl: process.env.MARKET_URL ?? 'http://127.0.0.1:8080', network: process.env.NETWORK });
  const network = await market.ready(); // reads GET /v1/meta once
  const type = process.env[`${prefix}WALLET_TYPE`] ?? 'p2wpkh';
  const words = process.env[`${prefix}MNEMONIC`];
  const wallet = words ? fromMnemonic(words, { type, network }) : fromWif(process.env[`${prefix}WIF`], { type, network });
  await market.signIn(wallet);
  return { market, wallet, network };
}

/** On the devnet only: coins from the faucet, confirmed, and the market caught up. */
export async function sandboxCoins(market, address, sats = 200_000) {
  await market.devnet.faucet(address, sats);
  await market.devnet.sync();
}

/** On the devnet only: a fresh asset of `quantity` units issued to `address`, confirmed. */
export async function sandboxAsset(market, address, quantity = '1') {
  const { asset } = await market.devnet.issue({ issuer: address, quantity_raw: quantity });
  await market.devnet.credit(address, 'XCP', '100000000'); // attach fees are paid in XCP
  await market.devnet.confirm();
  return asset;
}

export const print = (x) => console.log(JSON.stringify(x));
export const inOneDay = () => Math.floor(Date.now() / 1000) + 86_400;
