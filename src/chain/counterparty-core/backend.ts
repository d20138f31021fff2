/**
 * CounterpartyBackend over Counterparty Core's API v2. Ledger reads refuse to
 * serve a node that says it is not caught up (503 or X-COUNTERPARTY-READY
 * false): a stale balance could let a listing through for an asset that has
 * already moved. Core v11 answers 503 `Counterparty not ready` on every route
 * but `/v2/` while it catches up, block events included (the API description's
 * exemption of `/blocks` is not what apiserver.py does); the adapter also
 * refuses a block above X-COUNTERPARTY-HEIGHT, for a node started with
 * `--api-only` or `--force`, which serves while behind.
 *
 * Balance rows carry `asset_longname: null` even for a subasset (Core keeps the
 * longname in asset info only): balances are read with `verbose=true`, whose
 * `asset_info` carries it, and a row without `asset_info` (a proxy, an older
 * release) has its numeric asset looked up once.
 */
import {
  UpstreamUnavailable,
  type AddressUtxo,
  type CounterpartyBackend,
  type CpAssetInfo,
  type CpBalance,
  type CpEvent,
  type CpEventName,
  type CpStatus,
  type NodeDescription,
} from '../ports.js';
import type { ChainLogger, RetryPolicy } from '../upstream-http.js';
import { CounterpartyApiClient, type CpHeaders } from './api-client.js';
import { isNumericAsset } from '../../counterparty/asset-names.js';
import {
  addressUtxoOf,
  assetInfoOf,
  balanceOf,
  eventOf,
  type CpAssetRow,
  type CpBalanceRow,
  type CpBitcoinUtxoRow,
  type CpEventRow,
} from './mappers.js';
import { parseJsonExact, rawQuantity } from './safe-json.js';

export interface CounterpartyCoreOptions {
  /** API base, e.g. `http://user:pass@127.0.0.1:4000`; paths `/v2/...` are appended. */
  url: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Rows per page when following cursors (default 1000). */
  pageSize?: number;
  /** UTXOs per `/v2/utxos/withbalances` request, to keep URLs short (default 100). */
  utxoBatchSize?: number;
  logger?: ChainLogger;
}

interface CpRootResult {
  server_ready?: boolean;
  backend_height?: number | null;
  counterparty_height?: number | null;
  network?: string;
  version?: string;
  ledger_state?: string;
}

const enc = encodeURIComponent;

export class CounterpartyCoreBackend implements CounterpartyBackend {
  readonly kind = 'counterparty-core' as const;
  private readonly api: CounterpartyApiClient;
  private readonly pageSize: number;
  private readonly utxoBatchSize: number;
  private readonly longnames = new Map<string, string | null>();

  constructor(opts: CounterpartyCoreOptions) {
    this.api = new CounterpartyApiClient({ url: opts.url, timeoutMs: opts.timeoutMs, retry: opts.retry, logger: opts.logger });
    this.pageSize = opts.pageSize ?? 1000;
    this.utxoBatchSize = opts.utxoBatchSize ?? 100;
  }

  /** Never throws for "not ready": a status read reports it instead. */
  async getStatus(): Promise<CpStatus> {
    const reply = await this.api.get<CpRootResult | undefined>('/v2/', {}, { acceptNotReady: true });
    const root = reply?.result ?? {};
    const h = reply?.headers;
    const counterparty_height = root.counterparty_height ?? h?.counterpartyHeight ?? 0;
    const bitcoin_height = root.backend_height ?? h?.bitcoinHeight ?? 0;
    const ready = reply !== null && reply.status === 200 && (h?.ready ?? root.server_ready ?? false);
    return { counterparty_height, bitcoin_height, ready };
  }

  /** `/v2/` as Core answers it (also while catching up). The market is built against v11. */
  async describeNode(): Promise<NodeDescription> {
    const reply = await this.api.get<CpRootResult | undefined>('/v2/', {}, { acceptNotReady: true });
    const root = reply?.result ?? {};
    const status = await this.getStatus();
    const version = root.version ?? 'unknown';
    const problems: string[] = [];
    if (!/^11\./.test(version)) problems.push(`version ${version}: the market is built and tested against Counterparty Core v11 (API v2 as of 11.2.0)`);
    const notes = [`height ${status.counterparty_height}`, ...(root.ledger_state ? [`ledger ${root.ledger_state}`] : [])];
    // Catching up passes by itself: a note and `ready: false`, not a problem (startup-check.ts).
    if (!status.ready) notes.push(`catching up: parsed ${status.counterparty_height} of ${status.bitcoin_height} blocks`);
    return { version: `Counterparty Core ${version}`, network: root.network ?? 'unknown', ready: status.ready, notes, problems };
  }

  async getAddressBalances(address: string): Promise<CpBalance[]> {
    return this.balances(`/v2/addresses/${enc(address)}/balances`, {}, 'address balances');
  }

  async getUtxoBalances(utxo: string): Promise<CpBalance[]> {
    return this.balances(`/v2/utxos/${enc(utxo)}/balances`, {}, 'utxo balances');
  }

  /** `/v2/assets/{asset}/balances` (type all), every page; an unknown asset (404) has none. */
  async getAssetBalances(asset: string): Promise<CpBalance[]> {
    return this.balances(`/v2/assets/${enc(asset)}/balances`, { type: 'all' }, 'asset balances');
  }

  /** Every page of a balance route, verbose for the longnames, zero rows dropped. */
  private async balances(path: string, query: Record<string, string>, what: string): Promise<CpBalance[]> {
    const page = await this.api.getAll<CpBalanceRow>(path, { ...query, verbose: 'true' }, this.pageSize);
    if (!page) return [];
    this.requireReady(page.headers, what);
    const rows = page.rows.map((r) => ({ row: r, balance: balanceOf(r) })).filter((x) => x.balance.quantity_raw !== '0');
    for (const x of rows) {
      if (x.balance.asset_longname === null && !x.row.asset_info && isNumericAsset(x.balance.asset)) x.balance.asset_longname = await this.longnameOf(x.balance.asset);
    }
    return rows.map((x) => x.balance);
  }

  /**
   * A numeric asset's subasset longname from its asset info. Kept once read: a longname is
   * given at the subasset's creation and never changes, and a numeric asset without one never
   * gets one.
   */
  private async longnameOf(asset: string): Promise<string | null> {
    const known = this.longnames.get(asset);
    if (known !== undefined) return known;
    const info = await this.getAsset(asset);
    const longname = info?.asset_longname ?? null;
    if (info) this.longnames.set(asset, longname);
    return longname;
  }

  async getUtxosWithBalances(utxos: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const unique = [...new Set(utxos)];
    for (let i = 0; i < unique.length; i += this.utxoBatchSize) {
      const chunk = unique.slice(i, i + this.utxoBatchSize);
      const reply = await this.api.get<Record<string, boolean>>('/v2/utxos/withbalances', { utxos: chunk.join(',') });
      if (!reply) continue;
      this.requireReady(reply.headers, 'utxos with balances');
      for (const [utxo, has] of Object.entries(reply.result ?? {})) if (has === true) found.add(utxo);
    }
    return found;
  }

  async getAsset(asset: string): Promise<CpAssetInfo | null> {
    const reply = await this.api.get<CpAssetRow>(`/v2/assets/${enc(asset)}`);
    if (!reply || !reply.result) return null;
    this.requireReady(reply.headers, 'asset');
    return assetInfoOf(reply.result);
  }

  async estimateAttachXcpFee(): Promise<string> {
    const reply = await this.api.get<number | string>('/v2/compose/attach/estimatexcpfees');
    if (!reply) throw new UpstreamUnavailable('counterparty', 'counterparty estimatexcpfees: route not found', 502);
    this.requireReady(reply.headers, 'attach fee');
    const fee = rawQuantity(reply.result);
    if (fee === null) throw new UpstreamUnavailable('counterparty', 'counterparty estimatexcpfees: not an integer', 502);
    return fee;
  }

  /**
   * Events of one parsed block in ascending event order. Core filters by
   * `event_name`; we filter again because releases before the filter existed
   * ignore the parameter.
   */
  async getBlockEvents(height: number, names?: CpEventName[]): Promise<CpEvent[]> {
    const query = names && names.length ? { event_name: names.join(',') } : {};
    const page = await this.api.getAll<CpEventRow>(`/v2/blocks/${height}/events`, query, this.pageSize);
    const parsedTo = page?.headers.counterpartyHeight ?? null;
    // An unparsed block answers an empty list, which would read as "no events": refuse it.
    if (parsedTo !== null && height > parsedTo) {
      throw new UpstreamUnavailable('counterparty', `counterparty has parsed up to ${parsedTo}, not block ${height} yet`, 503);
    }
    if (!page) return [];
    const wanted = names && names.length ? new Set<string>(names) : null;
    return page.rows
      .map((r) => eventOf(r, height, parseJsonExact))
      .filter((e) => !wanted || wanted.has(e.event))
      .sort((a, b) => a.event_index - b.event_index);
  }

  /** Confirmed and mempool UTXOs; confirmations are counted from X-BITCOIN-HEIGHT. */
  async getAddressUtxos(address: string): Promise<AddressUtxo[]> {
    const reply = await this.api.get<CpBitcoinUtxoRow[]>(`/v2/bitcoin/addresses/${enc(address)}/utxos`, { unconfirmed: true });
    if (!reply || !Array.isArray(reply.result)) return [];
    let tip = reply.headers.bitcoinHeight;
    if (tip === null) tip = (await this.getStatus()).bitcoin_height || null;
    return reply.result.map((r) => addressUtxoOf(r, tip));
  }

  private requireReady(headers: CpHeaders, what: string): void {
    if (headers.ready === false) {
      const at = headers.counterpartyHeight ?? '?';
      const of = headers.bitcoinHeight ?? '?';
      throw new UpstreamUnavailable('counterparty', `counterparty not caught up (${at} of ${of}) for ${what}`, 503);
    }
  }
}
