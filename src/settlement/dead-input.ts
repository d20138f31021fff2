import { hex } from '@scure/base';
import { RawTx } from '@scure/btc-signer/script.js';
import type { Db } from '../store/db.js';
import type { BitcoinBackend } from '../chain/ports.js';
import { LIVE } from './tables.js';

type Signed = { txid: string; hex: string };

/**
 * An input of a member the node does not have that can never be spent by it: spent elsewhere
 * (its source known to the node, the output no longer unspent), or gone (its source in neither
 * the node's mempool nor its chain, and not a transaction the journal still relays: an attach
 * a reorg returned to the mempool and a restart then lost, a parent replaced upstream). Alone,
 * such a transaction is Core's `missing-inputs`, which ends a single-transaction settlement at
 * once; in a package Core answers only the package's shape
 * (`package-not-child-with-unconfirmed-parents`), and without this the settlement stayed
 * relayed, its claims held, for ever. `all`: every transaction of the settlement; `live`: those
 * still relayed. Null when nothing is provably dead.
 */
export async function deadInput(db: Db, bitcoin: BitcoinBackend, all: readonly Signed[], live: readonly Signed[]): Promise<{ outpoint: string; why: 'spent' | 'gone' } | null> {
  const known = new Map<string, boolean>();
  const onNode = async (txid: string) => {
    if (!known.has(txid)) known.set(txid, (await bitcoin.getTransaction(txid)) !== null);
    return known.get(txid)!;
  };
  const own = new Set(all.map((t) => t.txid));
  let gone: string | null = null;
  for (const t of live) {
    if (await onNode(t.txid)) continue;
    for (const i of RawTx.decode(hex.decode(t.hex)).inputs) {
      const txid = hex.encode(i.txid);
      const outpoint = `${txid}:${i.index}`;
      if (await onNode(txid)) {
        if (!(await bitcoin.getTxOut(txid, i.index, true))) return { outpoint, why: 'spent' };
      } else if (!gone && !own.has(txid) && !(await bitcoin.getTxOut(txid, i.index, true)) && !(await relaysStill(db, txid))) {
        // The output asked for too: the UTXO set answers for a confirmed source without txindex
        // (a node still building its index answers getrawtransaction "not found").
        gone = outpoint;
      }
    }
  }
  return gone ? { outpoint: gone, why: 'gone' } : null;
}

/** Whether a live settlement's member not refused is this transaction: a source still to come from the journal itself. */
async function relaysStill(db: Db, txid: string): Promise<boolean> {
  const row = await db
    .selectFrom('settlement_members as m')
    .innerJoin('settlements as s', 's.id', 'm.settlement_id')
    .select('m.txid')
    .where('m.txid', '=', txid)
    .where('m.state', '!=', 'refused')
    .where('s.state', 'in', LIVE)
    .executeTakeFirst();
  return row !== undefined;
}
