// Sign in: a wallet from a mnemonic, the market's network checked, a session.
import { connect, print } from './connect.mjs';

const { market, wallet, network } = await connect();
const meta = await market.meta();
print({ address: wallet.address, network, api_version: meta?.api_version ?? null, bidder_pubkey: wallet.bidder_pubkey });
