/**
 * `scantxoutset` on the devnet's JSON-RPC face, as Bitcoin Core 29 answers it: `start` with
 * `addr(<address>)` descriptors (a string, optionally with its `#checksum`, or `{desc}`) walks the
 * confirmed chainstate, never the mempool, and answers `success`, `txouts` (every coin of the
 * set, as Core counts what its cursor read), `height`, `bestblock`, `unspents` and `total_amount`;
 * each unspent's `desc` is the inferred `addr(…)` with its checksum. The devnet's scan is
 * instant, so `status` answers null and `abort` false (no scan running), and a `start` is never
 * refused as "in progress". Other descriptor kinds are refused (docs/devnet.md).
 */
import { decodeAddress, scriptToAddress } from '../../../bitcoin/address.js';
import type { Devnet } from '../devnet.js';
import { toBtc } from '../tx-json.js';
import { descriptorChecksum } from '../descriptor.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcFault } from './json-rpc.js';


/** The output script an `addr(…)` scan object names. */
function needle(d: Devnet, obj: unknown): Uint8Array {
  const text = typeof obj === 'string' ? obj : obj && typeof obj === 'object' && typeof (obj as { desc?: unknown }).desc === 'string' ? (obj as { desc: string }).desc : null;
  if (text === null) throw new RpcFault(RPC_INVALID_PARAMETER, 'Scan object needs to be either a string or an object');
  const [body, sum, ...rest] = text.split('#');
  if (rest.length) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, "Multiple '#' symbols");
  if (sum !== undefined) {
    if (sum.length !== 8) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, `Expected 8 character checksum, not ${sum.length} characters`);
    const want = descriptorChecksum(body!);
    if (want !== sum) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, `Provided checksum '${sum}' does not match computed checksum '${want ?? ''}'`);
  }
  const m = /^addr\((.*)\)$/.exec(body!);
  if (!m) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, `devnet: scantxoutset reads addr(<address>) descriptors only, not '${body}'`);
  const decoded = decodeAddress(m[1]!, d.network);
  if (!decoded.ok) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, 'Address is not valid');
  return decoded.script;
}

export function scantxoutset(d: Devnet, action: unknown, scanObjects: unknown): unknown {
  if (action === 'status') return null;
  if (action === 'abort') return false;
  if (action !== 'start') throw new RpcFault(RPC_INVALID_PARAMETER, `Invalid action '${String(action)}'`);
  if (scanObjects === undefined) throw new RpcFault(RPC_MISC_ERROR, 'scanobjects argument is required for the start action');
  const scripts = (scanObjects as unknown[]).map((o) => needle(d, o));
  const chain = d.state.chain;
  const tip = chain.tip();
  const seen = new Set<string>();
  const unspents = [];
  let total = 0n;
  for (const script of scripts) {
    const address = scriptToAddress(script, d.network);
    const desc = `addr(${address})`;
    for (const c of chain.coinsOf(script)) {
      const key = `${c.txid}:${c.vout}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total += c.value;
      unspents.push({
        txid: c.txid, vout: c.vout, scriptPubKey: Buffer.from(c.script).toString('hex'), desc: `${desc}#${descriptorChecksum(desc)}`, amount: toBtc(c.value),
        coinbase: c.coinbase, height: c.height, blockhash: chain.block(c.height)!.hash, confirmations: tip.height - c.height + 1,
      });
    }
  }
  return { success: true, txouts: chain.coinCount, height: tip.height, bestblock: tip.hash, unspents, total_amount: toBtc(total) };
}
