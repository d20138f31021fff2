/**
 * The client's tests talk to the real app through a fetch that goes through app.inject (the whole
 * HTTP stack answers), sign with real devnet keys through a WalletSigner that counts its calls,
 * and tamper with chosen replies to play a compromised server.
 */
import { hex } from '@scure/base';
import { SigHash, Transaction } from '@scure/btc-signer';
import { MarketClient, routeOf, type FetchLike, type WalletSigner } from '../../client/src/index.js';
import { READ_TX_OPTS } from '../../src/bitcoin/transaction.js';
import { signPsbt, type Market } from '../helpers/market.js';
import { signInput, signMessageBip322, type TestWallet } from '../helpers/wallets.js';

/** Every route (`METHOD /template`) a client test reached, however it was called: the coverage check reads it. */
export const reached = new Set<string>();

/** Records the route of each request `fetch` sends. */
export const recording = <F extends FetchLike>(fetch: F): F =>
  (async (url: string, init: Parameters<FetchLike>[1]) => {
    const route = routeOf(init.method, new URL(url).pathname);
    if (route) reached.add(route);
    return fetch(url, init);
  }) as F;

export const appFetch = (m: Market): FetchLike => recording(async (url, init) => {
  const u = new URL(url);
  const r = await m.app.inject({ method: init.method as 'GET', url: u.pathname + u.search, headers: init.headers, remoteAddress: '10.91.0.1', ...(init.body ? { payload: init.body } : {}) });
  return { status: r.statusCode, headers: { get: (n: string) => (r.headers[n.toLowerCase()] as string | undefined) ?? null }, text: async () => r.body };
});

const SIGHASH = { ALL: SigHash.ALL, DEFAULT: SigHash.DEFAULT, 'SINGLE|ANYONECANPAY': SigHash.SINGLE_ANYONECANPAY } as const;

export function wallet(w: TestWallet, calls: { sign: number }): WalletSigner {
  return {
    address: w.address,
    signPsbt: async (psbt, inputs, sighash) => {
      calls.sign++;
      // As a wallet does: its own key-path outputs get its internal key; a script-path input (a
      // co-signed leaf) is signed over the leaf the PSBT offers, with no key path added.
      const tx = Transaction.fromPSBT(hex.decode(psbt), { ...READ_TX_OPTS, allowUnknownInputs: true });
      const own = hex.encode(w.script);
      const leaf = inputs.filter((i) => w.family === 'p2tr' && tx.getInput(i).tapLeafScript?.length && hex.encode(tx.getInput(i).witnessUtxo?.script ?? new Uint8Array()) !== own);
      for (const i of leaf) signInput(tx, i, w, SIGHASH[sighash]);
      return signPsbt(hex.encode(tx.toPSBT()), w, inputs.filter((i) => !leaf.includes(i)), SIGHASH[sighash]);
    },
    signMessage: async (msg) => signMessageBip322(w, msg),
  };
}

/** A fetch that rewrites the `result` of the replies `match` picks (method and path). */
export const tampering = (m: Market, match: (method: string, path: string) => boolean, edit: (result: any) => void): FetchLike => async (url, init) => {
  const r = await appFetch(m)(url, init);
  if (!match(init.method, new URL(url).pathname) || r.status !== 200) return r;
  const body = JSON.parse(await r.text());
  edit(body.result);
  return { status: r.status, headers: r.headers, text: async () => JSON.stringify(body) };
};

/** Rewrites a PSBT (hex) in place. */
export const editPsbtHex = (psbtHex: string, f: (tx: Transaction) => void): string => {
  const tx = Transaction.fromPSBT(hex.decode(psbtHex), { ...READ_TX_OPTS, allowUnknownInputs: true });
  f(tx);
  return hex.encode(tx.toPSBT());
};

export const noSleep = { sleep: async () => undefined };

/** A regtest client signed in with `w` (its signatures counted in `calls`), through `fetch` (default: the honest app). */
export async function clientFor(m: Market, w: TestWallet, calls: { sign: number }, fetch: FetchLike = appFetch(m)): Promise<MarketClient> {
  const c = new MarketClient({ baseUrl: 'http://market.test', fetch, network: 'regtest', ...noSleep });
  await c.signIn(wallet(w, calls));
  return c;
}
