/**
 * CounterpartyBackend over Counterparty Core's API v2. Ledger reads refuse to
 * serve a node that says it is not caught up (503 or X-COUNTERPARTY-READY
 * false): a stale balance could let a listing through for an asset that has
 * already moved. Block events are served by Core even while it catches up, so
 * there we check that the block was parsed instead.
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
} from '../ports.js';
import type { ChainLogger, RetryPolicy } from '../upstream-http.js';
import { CounterpartyApiClient, type CpHeaders } from './api-client.js';
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
}

const enc = encodeURIComponent;

export class CounterpartyCoreBackend implements CounterpartyBackend {
  readonly kind = 'counterparty-core' as const;
  private readonly api: CounterpartyApiClient;
  private readonly pageSize: number;
  private readonly utxoBatchSize: number;

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

  async getAddressBalances(address: string): Promise<CpBalance[]> {
    const page = await this.api.getAll<CpBalanceRow>(`/v2/addresses/${enc(address)}/balances`, {}, this.pageSize);
    if (!page) return [];
    this.requireReady(page.headers, 'address balances');
    return page.rows.map(balanceOf).filter((b) => b.quantity_raw !== '0');
  }

  async getUtxoBalances(utxo: string): Promise<CpBalance[]> {
    const page = await this.api.getAll<CpBalanceRow>(`/v2/utxos/${enc(utxo)}/balances`, {}, this.pageSize);
    if (!page) return [];
    this.requireReady(page.headers, 'utxo balances');
    return page.rows.map(balanceOf).filter((b) => b.quantity_raw !== '0');
  }

  /** `/v2/assets/{asset}/balances` (type all), every page; an unknown asset (404) has none. */
  async getAssetBalances(asset: string): Promise<CpBalance[]> {
    const page = await this.api.getAll<CpBalanceRow>(`/v2/assets/${enc(asset)}/balances`, { type: 'all' }, this.pageSize);
    if (!page) return [];
    this.requireReady(page.headers, 'asset balances');
    return page.rows.map(balanceOf).filter((b) => b.quantity_raw !== '0');
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
