import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer/script.js';
import type { IndexedBlock } from './indexer.js';

/** Per block, made once: several watchers follow spends, and decoding every transaction is most of their work. */
const ofBlock = new WeakMap<IndexedBlock, ReadonlyMap<string, string>>();

/** Every outpoint (`txid:vout`) the block's transactions spend, with the spending txid. Watchers that follow spends share it. */
export function spentOutpoints(b: IndexedBlock): ReadonlyMap<string, string> {
  let spent = ofBlock.get(b);
  if (spent) return spent;
  const found = new Map<string, string>();
  for (const t of b.block.txs) {
    let raw;
    try {
      raw = RawTx.decode(hex.decode(t.hex));
    } catch {
      continue;
    }
    for (const i of raw.inputs) found.set(`${hex.encode(i.txid)}:${i.index}`, t.txid);
  }
  spent = found;
  ofBlock.set(b, spent);
  return spent;
}
