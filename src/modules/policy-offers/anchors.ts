/**
 * The anchor pool's one owner. An anchor is a small confirmed market-wallet UTXO; every
 * collection-offer parent spends one, so the pool bounds how many funding sets can be open and
 * sweeping an anchor kills every parent that names it.
 *
 *   pending  → free       its refill transaction confirmed
 *   free     → reserved   a preflight took it (released when the preflight lapses unplaced)
 *   reserved → spent      an accept journaled the parent (back to reserved if that settlement is released)
 *   reserved → retired    its funding set ended unfilled (cancelled, expired, invalid): swept in the next batch
 *   retired  → sweeping   a sweep transaction was journaled; → spent when it confirms
 */
import type { Db, Tx } from '../../store/db.js';
import type { AnchorState } from './tables.js';

async function move(tx: Tx | Db, outpoint: string, from: AnchorState[], to: AnchorState, at: number, extra: { funding_set_id?: string | null; reserved_until?: number | null } = {}, setId?: string): Promise<boolean> {
  let q = tx.updateTable('market_anchors').set({ state: to, updated_at: at, ...extra }).where('outpoint', '=', outpoint).where('state', 'in', from);
  if (setId !== undefined) q = q.where('funding_set_id', '=', setId);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Takes one free anchor for a preflight; null when none is free (503 offer_capacity_full). */
export async function reserveAnchor(tx: Tx, setId: string, until: number, at: number): Promise<{ outpoint: string; txid: string; vout: number; value_sats: number } | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const free = await tx.selectFrom('market_anchors').selectAll().where('state', '=', 'free').orderBy('created_at').orderBy('outpoint').limit(5).execute();
    if (!free.length) return null;
    for (const a of free) {
      if (await move(tx, a.outpoint, ['free'], 'reserved', at, { funding_set_id: setId, reserved_until: until })) {
        return { outpoint: a.outpoint, txid: a.txid, vout: a.vout, value_sats: Number(a.value_sats) };
      }
    }
  }
  return null;
}

export const freeAnchor = (tx: Tx, outpoint: string, setId: string, at: number) => move(tx, outpoint, ['reserved'], 'free', at, { funding_set_id: null, reserved_until: null }, setId);
export const retireAnchor = (tx: Tx, outpoint: string, setId: string, at: number) => move(tx, outpoint, ['reserved'], 'retired', at, {}, setId);
export const spendAnchor = (tx: Tx, outpoint: string, setId: string, at: number) => move(tx, outpoint, ['reserved'], 'spent', at, {}, setId);
/** The settlement that spent it was released: the set is dead, so the anchor goes to the sweep. */
export const unspendAnchor = (tx: Tx, outpoint: string, setId: string, at: number) => move(tx, outpoint, ['spent'], 'retired', at, {}, setId);

/**
 * The chain confirmed the parent of a set whose settlement the journal had released: the anchor
 * was spent after all. A sweep that took it meanwhile will be refused (its input is gone) and
 * its other anchors go back to the next batch (releaseRefill).
 */
export const respendAnchor = (tx: Tx, outpoint: string, setId: string, at: number) => move(tx, outpoint, ['retired', 'sweeping'], 'spent', at, {}, setId);

/** A reorg restored the set that retired it, before any sweep took it. */
export const unretireAnchor = (tx: Tx, outpoint: string, setId: string, at: number) => move(tx, outpoint, ['retired'], 'reserved', at, {}, setId);

/** New anchors from a refill (pending until it confirms) or a filled parent's out 1 (free once confirmed). */
export async function addAnchors(tx: Tx, rows: Array<{ txid: string; vout: number; value_sats: number }>, state: 'pending' | 'free', at: number): Promise<void> {
  for (const r of rows) {
    await tx
      .insertInto('market_anchors')
      .values({ outpoint: `${r.txid}:${r.vout}`, txid: r.txid, vout: r.vout, value_sats: r.value_sats, state, funding_set_id: null, reserved_until: null, created_at: at, updated_at: at })
      .onConflict((oc) => oc.column('outpoint').doNothing())
      .execute();
  }
}

/** A refill/sweep confirmed: its outputs are free anchors, the anchors it swept are spent. */
export async function confirmRefill(tx: Tx, txid: string, swept: string[], at: number): Promise<void> {
  await tx.updateTable('market_anchors').set({ state: 'free', updated_at: at }).where('txid', '=', txid).where('state', '=', 'pending').execute();
  for (const o of swept) await move(tx, o, ['sweeping'], 'spent', at);
}

/** A refill/sweep was released (refused or conflicted): its outputs never were; the swept anchors wait for the next batch. */
export async function releaseRefill(tx: Tx, txid: string, swept: string[], at: number): Promise<void> {
  await tx.deleteFrom('market_anchors').where('txid', '=', txid).where('state', '=', 'pending').execute();
  for (const o of swept) await move(tx, o, ['sweeping'], 'retired', at);
}

/** A reorg undid the refill's confirmation: its outputs are pending again (unless already reserved). */
export async function unconfirmRefill(tx: Tx, txid: string, at: number): Promise<void> {
  await tx.updateTable('market_anchors').set({ state: 'pending', updated_at: at }).where('txid', '=', txid).where('state', '=', 'free').execute();
}

export const sweepAnchor = (tx: Tx, outpoint: string, at: number) => move(tx, outpoint, ['retired'], 'sweeping', at);

/**
 * A parent confirmed with its child: out 1 returned the anchor's value to the wallet, a new free
 * anchor, unless a settlement already spends it (then it is that settlement's coin, not an anchor).
 */
export async function anchorFromParent(tx: Tx, parentTxid: string, value: number, at: number): Promise<void> {
  const claimed = await tx.selectFrom('outpoint_claims').select('outpoint').where('outpoint', '=', `${parentTxid}:1`).executeTakeFirst();
  if (!claimed) await addAnchors(tx, [{ txid: parentTxid, vout: 1, value_sats: value }], 'free', at);
}
