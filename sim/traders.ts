/**
 * The traders: each a wallet with real keys (its own PSBTs signed by its own key) driving the
 * market through the client library, as an integrator's bot would, from an address of its own.
 * What a trader remembers is only what a bot would: its address and what the market told it.
 */
import { MarketClient, type WalletSigner } from '../client/src/index.js';
import { makeWallet, type TestWallet, type WalletFamily } from '../test/helpers/wallets.js';
import { wallet as walletSigner } from '../test/client/harness.js';
import { balancedFetch } from './balancer.js';
import type { History, Violation } from './history.js';
import type { Rng } from './rng.js';
import type { World } from './world.js';

export class Trader {
  readonly wallet: TestWallet;
  readonly signer: WalletSigner;
  readonly client: MarketClient;
  readonly ip: string;
  /** Checkouts this trader completed, by quote id (to read back). */
  readonly bought = new Set<string>();
  signedIn = false;

  constructor(readonly id: number, readonly rng: Rng, family: WalletFamily, seed: number, world: World, history: History, violate: (v: Violation) => void) {
    this.wallet = makeWallet(family, `sim-${seed}-${id}`);
    this.signer = walletSigner(this.wallet, { sign: 0 });
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
    return this.wallet.address;
  }

  async ensureSignedIn(): Promise<void> {
    if (this.signedIn) return;
    await this.client.signIn(this.signer);
    this.signedIn = true;
  }
}
