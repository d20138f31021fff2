import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer/script.js';
import type { IndexedBlock } from './indexer.js';

/** Every outpoint (`txid:vout`) the block's transactions spend, with the spending txid. Watchers that follow spends share it. */
export function spentOutpoints(b: IndexedBlock): Map<string, string> {
  const spent = new Map<string, string>();
  for (const t of b.block.txs) {
    let raw;
    try {
      raw = RawTx.decode(hex.decode(t.hex));
    } catch {
      continue;
    }
    for (const i of raw.inputs) spent.set(`${hex.encode(i.txid)}:${i.index}`, t.txid);
  }
  return spent;
}
