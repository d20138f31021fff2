import { Transaction } from '@scure/btc-signer';
import { verifyMessage } from '../src/bitcoin/message-signature.js';
import { verifyInputSignature } from '../src/bitcoin/input-signature.js';
import { makeWallet, signInput, signMessageBip322, walletInput } from '../test/helpers/wallets.js';

export interface VerifyResult {
  name: string;
  per_second: number;
  us_each: number;
}

function measure(name: string, fn: () => boolean, seconds = 1.5): VerifyResult {
  for (let i = 0; i < 20; i++) if (!fn()) throw new Error(`${name}: verification failed during warm-up`);
  let n = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() - start < budget) {
    if (!fn()) throw new Error(`${name}: verification failed`);
    n++;
  }
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, per_second: Math.round(n / secs), us_each: Math.round((secs / n) * 1e6 * 10) / 10 };
}

/** Signature verifications per second on one core: the work every sign-in and every trade pays. */
export function verificationBenchmarks(): VerifyResult[] {
  const out: VerifyResult[] = [];
  for (const family of ['p2wpkh', 'p2tr', 'p2pkh'] as const) {
    const w = makeWallet(family, 'bench');
    const message = `bench sign-in ${family}`;
    const sig = signMessageBip322(w, message);
    out.push(measure(`message signature (${family === 'p2pkh' ? 'BIP-137' : 'BIP-322'} ${family})`, () => verifyMessage({ address: w.address, message, signatureBase64: sig, network: 'regtest' }).ok));
  }
  for (const [family, sighash, label] of [
    ['p2wpkh', 0x83, 'SINGLE|ANYONECANPAY'],
    ['p2tr', 0x83, 'SINGLE|ANYONECANPAY'],
    ['p2wpkh', 0x01, 'ALL'],
    ['p2tr', 0x00, 'DEFAULT'],
  ] as const) {
    const w = makeWallet(family, 'bench-psbt');
    const tx = new Transaction({ allowUnknownOutputs: true });
    tx.addInput(walletInput(w, { txid: 'aa'.repeat(32), index: 0, amount: 30_000n }));
    tx.addOutput({ script: w.script, amount: 25_000n });
    signInput(tx, 0, w, sighash);
    tx.finalize();
    const raw = tx.extract();
    const prevouts = [{ script: w.script, amount: 30_000n }];
    out.push(measure(`input signature (${family} ${label})`, () => verifyInputSignature(raw, 0, prevouts).ok));
  }
  return out;
}
