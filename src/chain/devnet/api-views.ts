/**
 * Counterparty Core API v2 shaped views of the devnet ledger (non-verbose rows, as in
 * `test/fixtures/counterparty-core/api-v2.openapi.json`), for the HTTP face that serves
 * `/v2/…`. Lists come in Core's envelope `{result, next_cursor, result_count}`; quantities are
 * JSON numbers (strings above 2^53, see `jsonQuantity`). Only confirmed state is shown, except
 * by the `mempool…` views, whose rows carry block_index 9999999 as in Core.
 */
import { decodeAddress } from '../../bitcoin/address.js';
import { jsonQuantity } from '../../counterparty/ledger-events.js';
import { applyCounterpartyTx } from '../../counterparty/ledger-rules.js';
import { readCounterpartyTx } from '../../counterparty/tx-info.js';
import type { CpEventName } from '../ports.js';
import type { Devnet } from './devnet.js';
import { attachFeeAt, txView } from './ledger-apply.js';
import type { AssetRecord, LedgerEvent } from './ledger.js';
import { ScratchLedger } from './scratch-ledger.js';
import { toBtc } from './tx-json.js';

export const MEMPOOL_BLOCK_INDEX = 9_999_999;

export interface Page<T> {
  result: T[];
  next_cursor: number | null;
  result_count: number;
}

/**
 * A row of Core's `balances` table as its balance routes serve it. `asset_longname` is null on
 * every row, a subasset's too (Core keeps the longname in asset info only); `rowid` orders and
 * pages the rows (newest first) and never leaves the face.
 */
export interface BalanceRow {
  address: string | null;
  asset: string;
  asset_longname: null;
  quantity: number | string;
  utxo: string | null;
  utxo_address: string | null;
  rowid: number;
}

export class CounterpartyApiViews {
  constructor(private readonly d: Devnet) {}

  private get node() {
    return this.d.state;
  }

  /** A subasset's longname (asset info), for the in-process port: the rows leave it null, as Core's do. */
  longname(asset: string): string | null {
    return this.node.ledger.assets.get(asset)?.asset_longname ?? null;
  }

  private rowids: { events: number; ids: Map<string, number> } | null = null;

  /**
   * Core's balance rowid stand-in: the event_index of the first CREDIT that made the (holder,
   * asset) balance, so rows come newest first and cursors page by it as Core's do. Rebuilt when
   * the event list changes (a block, a rollback).
   */
  private rowidOf(holder: string, asset: string): number {
    const events = this.node.ledger.events;
    if (!this.rowids || this.rowids.events !== events.length || (events.length && !this.rowids.ids.size)) {
      const ids = new Map<string, number>();
      for (const e of events) {
        if (e.event !== 'CREDIT') continue;
        const who = (e.params.utxo as string | null | undefined) ?? (e.params.address as string | null | undefined);
        const key = `${who}/${String(e.params.asset)}`;
        if (who && !ids.has(key)) ids.set(key, e.event_index + 1);
      }
      this.rowids = { events: events.length, ids };
    }
    // A balance the devnet made without a CREDIT (none today) sorts as the newest.
    return this.rowids.ids.get(`${holder}/${asset}`) ?? events.length + 1;
  }

  /** `/v2/`: server info (caught up, unless the devnet's fault says it is catching up). */
  info() {
    const s = this.status();
    return {
      server_ready: s.ready, network: 'regtest', version: '11.2.0', backend_height: s.bitcoin_height, counterparty_height: s.counterparty_height,
      ledger_state: s.ready ? 'Following' : 'Catching Up',
    };
  }

  /**
   * Values for the X-COUNTERPARTY-HEIGHT / X-BITCOIN-HEIGHT / X-COUNTERPARTY-READY headers. A
   * `not_ready` fault reports the ledger two blocks behind: Core is ready at one block behind.
   */
  status() {
    const h = this.node.chain.height;
    if (this.d.counterpartyFault === 'not_ready') return { counterparty_height: Math.max(0, h - 2), bitcoin_height: h, ready: false };
    return { counterparty_height: h, bitcoin_height: h, ready: true };
  }

  /** `/v2/addresses/{address}/balances?type=all|address|utxo`: non-zero balances, by asset name. */
  addressBalances(address: string, type: 'all' | 'address' | 'utxo' = 'all'): BalanceRow[] {
    const rows: BalanceRow[] = [];
    if (type !== 'utxo') {
      for (const [asset, q] of this.node.ledger.addresses.get(address) ?? []) {
        if (q > 0n) rows.push({ address, asset, asset_longname: null, quantity: jsonQuantity(q), utxo: null, utxo_address: null, rowid: this.rowidOf(address, asset) });
      }
    }
    if (type !== 'address') {
      for (const [utxo, holdings] of this.node.ledger.utxos) {
        for (const h of holdings.values()) {
          if (h.utxoAddress === address && h.quantity > 0n) rows.push(this.utxoRow(utxo, h.asset, h.quantity, h.utxoAddress));
        }
      }
    }
    return byRowid(rows);
  }

  private utxoRow(utxo: string, asset: string, q: bigint, utxoAddress: string | null): BalanceRow {
    return { address: null, asset, asset_longname: null, quantity: jsonQuantity(q), utxo, utxo_address: utxoAddress, rowid: this.rowidOf(utxo, asset) };
  }

  /** `/v2/utxos/{utxo}/balances`. */
  utxoBalances(utxo: string): BalanceRow[] {
    return this.node.ledger
      .utxoBalances(utxo)
      .filter((h) => h.quantity > 0n)
      .map((h) => this.utxoRow(utxo, h.asset, h.quantity, h.utxoAddress))
      .sort((a, b) => b.rowid - a.rowid);
  }

  /** `/v2/utxos/withbalances?utxos=…`. */
  utxosWithBalances(utxos: readonly string[]): Record<string, boolean> {
    return Object.fromEntries(utxos.map((u) => [u, this.node.ledger.utxoBalances(u).some((h) => h.quantity > 0n)]));
  }

  /**
   * An asset by name or subasset longname as Core's `get_asset` finds it: the name upper-cased,
   * the longname without regard to case (`asset = UPPER(x) OR asset_longname = UPPER(x) COLLATE NOCASE`).
   */
  private findAsset(nameOrLongname: string): AssetRecord | undefined {
    const upper = nameOrLongname.toUpperCase();
    const ledger = this.node.ledger;
    const byName = ledger.assets.get(upper);
    if (byName) return byName;
    for (const a of ledger.assets.values()) if (a.asset_longname !== null && a.asset_longname.toUpperCase() === upper) return a;
    return undefined;
  }

  /** `/v2/assets/{asset}` by name or subasset longname; null when unknown. */
  asset(nameOrLongname: string) {
    const a = this.findAsset(nameOrLongname);
    return a ? assetRow(a) : null;
  }

  /** `/v2/assets/{asset}/balances?type=all|address|utxo`: every holder, address and UTXO rows. */
  assetBalances(nameOrLongname: string, type: 'all' | 'address' | 'utxo' = 'all'): BalanceRow[] {
    const a = this.findAsset(nameOrLongname);
    if (!a) return [];
    const rows: BalanceRow[] = [];
    if (type !== 'utxo') {
      for (const [address, m] of this.node.ledger.addresses) {
        const q = m.get(a.asset) ?? 0n;
        if (q > 0n) rows.push({ address, asset: a.asset, asset_longname: null, quantity: jsonQuantity(q), utxo: null, utxo_address: null, rowid: this.rowidOf(address, a.asset) });
      }
    }
    if (type !== 'address') {
      for (const [utxo, m] of this.node.ledger.utxos) {
        const h = m.get(a.asset);
        if (h && h.quantity > 0n) rows.push(this.utxoRow(utxo, a.asset, h.quantity, h.utxoAddress));
      }
    }
    return byRowid(rows);
  }

  /**
   * `/v2/compose/attach/estimatexcpfees`: the fee the next block would charge (raw XCP). Core
   * prices it at its current block (`CurrentState().current_block_index()`); the devnet still
   * quotes the next block's, which the market's attach-fee tests rely on (docs/devnet.md).
   */
  attachEstimateXcpFee(): bigint {
    return attachFeeAt(this.node.ledger, this.node.chain.height + 1, this.node.params.ledger.attachFee);
  }

  /** `/v2/events` (newest first; `cursor` is the highest event_index to return). */
  events(q: { names?: readonly string[]; cursor?: number; limit?: number; offset?: number } = {}): Page<LedgerEvent> {
    return page(this.node.ledger.events, q);
  }

  /** `/v2/blocks/{n}/events`. */
  blockEvents(blockIndex: number, q: { names?: readonly string[]; cursor?: number; limit?: number; offset?: number } = {}): Page<LedgerEvent> {
    return page(this.node.ledger.eventsByBlock.get(blockIndex) ?? [], q);
  }

  /** Every event of a block in index order (the port's `getBlockEvents`). */
  blockEventList(blockIndex: number, names?: readonly CpEventName[]): LedgerEvent[] {
    const all = this.node.ledger.eventsByBlock.get(blockIndex) ?? [];
    return names?.length ? all.filter((e) => (names as readonly string[]).includes(e.event)) : [...all];
  }

  /** `/v2/blocks/{n}`; null above the tip. */
  block(blockIndex: number) {
    return this.node.ledger.blocks.get(blockIndex) ?? null;
  }

  /** `/v2/blocks/last`. */
  lastBlock() {
    return this.block(this.node.chain.height);
  }

  /** `/v2/transactions/{tx_hash}` for confirmed Counterparty transactions; null otherwise. */
  transaction(txHash: string) {
    return this.node.ledger.transactions.get(txHash) ?? null;
  }

  /**
   * `/v2/mempool/events`: what the mempool transactions would do if mined next, in acceptance
   * order, each seeing the effects of the earlier ones. No ledger state changes.
   */
  mempoolEvents(names?: readonly string[]): Array<{ tx_hash: string | null; event: string; params: Record<string, unknown>; timestamp: number }> {
    const scratch = new ScratchLedger(this.node.ledger);
    const fee = this.attachEstimateXcpFee();
    const isValidAddress = (a: string) => decodeAddress(a, this.d.network).ok;
    const out: Array<{ tx_hash: string | null; event: string; params: Record<string, unknown>; timestamp: number }> = [];
    let txIndex = this.node.ledger.nextTxIndex;
    let attaches = 0;
    for (const e of this.node.mempool.ordered()) {
      const prevouts = e.tx.inputs.map((i) => this.node.chain.coin(i.txid, i.vout) ?? this.node.mempool.output(i.txid, i.vout) ?? null);
      const info = readCounterpartyTx(txView(e.tx, prevouts.every(Boolean) ? (prevouts as { value: bigint; script: Uint8Array }[]) : null), this.d.network);
      const effects = applyCounterpartyTx(info, scratch, {
        blockIndex: MEMPOOL_BLOCK_INDEX, blockHash: 'mempool', blockTime: e.time, txIndex, attachFeeRaw: fee, attachesEarlierInBlock: attaches, isValidAddress,
      });
      if (!effects.listed) continue;
      txIndex++;
      attaches += effects.attachCount;
      scratch.apply(effects.changes);
      for (const ev of effects.events) {
        if (!names?.length || names.includes(ev.event)) out.push({ tx_hash: ev.tx_hash, event: ev.event, params: ev.params, timestamp: e.time });
      }
    }
    return out;
  }

  /** Unspent outputs of an address, confirmed and mempool, minus those the mempool spends. */
  addressUtxoRows(address: string): Array<{ txid: string; vout: number; value_sats: number; confirmations: number; height: number | null }> {
    const d = decodeAddress(address, this.d.network);
    if (!d.ok) return [];
    const tip = this.node.chain.height;
    const rows: Array<{ txid: string; vout: number; value_sats: number; confirmations: number; height: number | null }> = [];
    for (const c of this.node.chain.coinsOf(d.script)) {
      if (!this.node.mempool.spender(c.txid, c.vout)) rows.push({ txid: c.txid, vout: c.vout, value_sats: Number(c.value), confirmations: tip - c.height + 1, height: c.height });
    }
    for (const e of this.node.mempool.ordered()) {
      e.tx.outputs.forEach((o, vout) => {
        if (sameScript(o.script, d.script) && !this.node.mempool.spender(e.tx.txid, vout)) {
          rows.push({ txid: e.tx.txid, vout, value_sats: Number(o.value), confirmations: 0, height: null });
        }
      });
    }
    return rows;
  }

  /** `/v2/bitcoin/addresses/{address}/utxos?unconfirmed=`: Core's row shape. */
  bitcoinAddressUtxos(address: string, unconfirmed = false) {
    return this.addressUtxoRows(address)
      .filter((r) => unconfirmed || r.confirmations > 0)
      .map((r) => ({ vout: r.vout, height: r.height, value: r.value_sats, confirmations: r.confirmations, amount: toBtc(r.value_sats), txid: r.txid }));
  }
}

function byRowid(rows: BalanceRow[]): BalanceRow[] {
  return rows.sort((a, b) => b.rowid - a.rowid || (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0));
}

function sameScript(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Core's assets_info row of XCP (api/migrations/0004…): no id, no issuer, the burn period's blocks. */
const XCP_ROW = { asset_id: null, issuer: null, owner: null, description: 'The Counterparty protocol native currency', first_issuance_block_index: 278319, last_issuance_block_index: 283810 };

/** Core's non-verbose `assets_info` row (verbose adds the block times and `supply_normalized`). */
export function assetRow(a: AssetRecord) {
  if (a.asset === 'XCP') {
    return {
      asset: 'XCP', asset_id: XCP_ROW.asset_id, asset_longname: null, issuer: XCP_ROW.issuer, owner: XCP_ROW.owner, divisible: true, locked: true,
      supply: jsonQuantity(a.supply), description: XCP_ROW.description, description_locked: false,
      first_issuance_block_index: XCP_ROW.first_issuance_block_index, last_issuance_block_index: XCP_ROW.last_issuance_block_index, mime_type: 'text/plain',
    };
  }
  return {
    asset: a.asset, asset_id: a.asset_id, asset_longname: a.asset_longname, issuer: a.issuer, owner: a.owner, divisible: a.divisible,
    locked: a.locked, supply: jsonQuantity(a.supply), description: a.description, description_locked: false,
    first_issuance_block_index: a.first_issuance_block_index, last_issuance_block_index: a.last_issuance_block_index, mime_type: 'text/plain',
  };
}

function page(all: readonly LedgerEvent[], q: { names?: readonly string[]; cursor?: number; limit?: number; offset?: number }): Page<LedgerEvent> {
  const filtered = (q.names?.length ? all.filter((e) => q.names!.includes(e.event)) : all).slice().reverse();
  const limit = Math.max(1, Math.min(q.limit ?? 100, 1000));
  let start = 0;
  if (q.offset !== undefined) start = q.offset;
  else if (q.cursor !== undefined) start = filtered.findIndex((e) => e.event_index <= q.cursor!);
  if (start < 0) start = filtered.length;
  const result = filtered.slice(start, start + limit);
  const next = filtered[start + limit];
  return { result, next_cursor: next ? next.event_index : null, result_count: filtered.length };
}
