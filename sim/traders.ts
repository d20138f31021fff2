/**
 * The traders: each a wallet with real keys (its own PSBTs signed by its own key) driving the
 * market through the client library, as an integrator's bot would, from an address of its own.
 * The wallet is one of the client's own adapters (client/src/wallets), as a bot writes it: half
 * the traders from a BIP-39 mnemonic (BIP-86 / BIP-84 paths), half from a WIF. What a trader
 * remembers is only what a bot would: its address and what the market told it.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { WIF } from '@scure/btc-signer';
import { fromMnemonic, fromWif, MarketClient, type KeyWallet } from '../client/src/index.js';
import { networkParams } from '../src/bitcoin/networks.js';
import { balancedFetch } from './balancer.js';
import type { History, Violation } from './history.js';
import type { Rng } from './rng.js';
import type { World } from './world.js';
import type { TraderWebhook } from './webhook-receiver.js';

export type TraderFamily = 'p2tr' | 'p2wpkh';

/** The trader's wallet, from key material the seed fixes: a mnemonic or a WIF (drawn). */
function traderWallet(family: TraderFamily, label: string, fromWords: boolean): KeyWallet & { wif: string } {
  const material = sha256(new TextEncoder().encode(label));
  const w = fromWords
    ? fromMnemonic(entropyToMnemonic(material.slice(0, 16), wordlist), { type: family, network: 'regtest' })
    : fromWif(WIF(networkParams('regtest')).encode(material), { type: family, network: 'regtest' });
  return Object.assign(w, { wif: WIF(networkParams('regtest')).encode(w.privateKey) });
}

export class Trader {
  /** The client's key wallet (its private key and WIF only for the no_leak check). */
  readonly signer: KeyWallet & { wif: string };
  readonly client: MarketClient;
  readonly ip: string;
  /** Checkouts this trader completed, by quote id (to read back). */
  readonly bought = new Set<string>();
  /** Collection offers this trader placed and has not cancelled (as placeCollectionOffer returned them). */
  readonly collectionOffers: Array<{ funding_set_id: string; parent_txid: string; offers: Array<{ id: string }> }> = [];
  /** Bids it placed at a counter's price, to authorize once funded. */
  readonly counterBids: Array<{ offer_id: string; slot: { txid: string; vout: number }; price_sats: number; target_outpoint: { txid: string; vout: number } }> = [];
  /** Counters it made as a seller and has not withdrawn (ids, as `counter` returned them). */
  readonly madeCounters: string[] = [];
  /** Its webhook endpoint, once registered (sim/webhook-receiver.ts). */
  webhook: TraderWebhook | undefined;
  signedIn = false;

  constructor(readonly id: number, readonly rng: Rng, family: TraderFamily, seed: number, world: World, history: History, violate: (v: Violation) => void) {
    this.signer = traderWallet(family, `sim-${seed}-${id}`, rng.fork('wallet').chance(0.5));
    this.ip = `10.${(id >> 8) & 255}.${id & 255}.7`;
    this.client = new MarketClient({
      baseUrl: 'http://market.sim',
      network: 'regtest',
      fetch: balancedFetch({ world, rng: rng.fork('balancer'), actor: this.name, ip: this.ip, history, violate }),
      timeoutMs: 20_000,
      maxAttempts: 6,
      backoffMs: 200,
    });
  }

  get name(): string {
    return `t${this.id}`;
  }

  get address(): string {
    return this.signer.address;
  }

  async ensureSignedIn(): Promise<void> {
    if (this.signedIn) return;
    await this.client.signIn(this.signer);
    this.signedIn = true;
  }
}
