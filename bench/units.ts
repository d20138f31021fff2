import { SigHash } from '@scure/btc-signer';
import type { Devnet } from '../src/chain/devnet/devnet.js';
import { attachOutputScript } from '../src/counterparty/attach-detach.js';
import { buildTx, coinOf } from '../test/helpers/devnet.js';
import type { TestWallet } from '../test/helpers/wallets.js';

/** Issues a fresh one-unit asset to `w` and attaches it to a 330-sat output of `w` (unmined); returns the asset and the attach txid (the unit sits at output 0). */
export async function attachFreshUnit(devnet: Devnet, w: TestWallet): Promise<{ asset: string; txid: string }> {
  const { asset } = await devnet.issueAsset({ issuer: w.address, quantity_raw: '1', divisible: false });
  const f = await devnet.faucet(w.address, 20_000);
  const coin = coinOf(devnet, f.txid, f.vout);
  const raw = buildTx([{ wallet: w, coin, sighash: w.family === 'p2tr' ? SigHash.DEFAULT : SigHash.ALL }], (input0) => [
    { script: w.script, amount: 330n },
    { script: attachOutputScript({ input0Txid: input0, asset, quantity: 1n, destinationVout: 0 }), amount: 0n },
    { script: w.script, amount: coin.amount - 330n - 1_000n },
  ]);
  return { asset, txid: await devnet.bitcoin.broadcast(raw) };
}
