/**
 * Events with Counterparty Core's names and parameter shapes (the `bindings` Core journals in
 * `messages`, as `/v2/events` serves them). Quantities are JSON numbers as in Core, except that
 * a quantity above 2^53 − 1 (Core allows up to 2^63 − 1) is a decimal string, so no consumer
 * silently reads a rounded number.
 */
export interface CpEventRecord {
  event: string;
  tx_hash: string | null;
  params: Record<string, unknown>;
}

/** A Counterparty quantity for JSON: a number while exact, else a decimal string. */
export function jsonQuantity(q: bigint): number | string {
  return q <= BigInt(Number.MAX_SAFE_INTEGER) && q >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(q) : q.toString();
}

/** Reads a quantity written by `jsonQuantity` (or any integer JSON value) back as a bigint. */
export function quantityFromJson(v: unknown): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v)) return BigInt(v);
  throw new Error(`not a quantity: ${String(v)}`);
}

/** Who holds a balance: an address, or a UTXO (`txid:vout`) owned by `utxoAddress`. */
export type Holder = { kind: 'address'; address: string } | { kind: 'utxo'; utxo: string; utxoAddress: string | null };

export interface EventContext {
  txHash: string;
  txIndex: number;
  blockIndex: number;
  blockTime: number;
}

function holderFields(h: Holder): { address: string | null; utxo: string | null; utxo_address: string | null } {
  return h.kind === 'address'
    ? { address: h.address, utxo: null, utxo_address: null }
    : { address: null, utxo: h.utxo, utxo_address: h.utxoAddress };
}

export function debitEvent(c: EventContext, h: Holder, asset: string, quantity: bigint, action: string): CpEventRecord {
  return {
    event: 'DEBIT',
    tx_hash: c.txHash,
    params: {
      action, ...holderFields(h), asset, block_index: c.blockIndex, event: c.txHash,
      quantity: jsonQuantity(quantity), tx_index: c.txIndex, block_time: c.blockTime,
    },
  };
}

export function creditEvent(c: EventContext, h: Holder, asset: string, quantity: bigint, callingFunction: string): CpEventRecord {
  return {
    event: 'CREDIT',
    tx_hash: c.txHash,
    params: {
      ...holderFields(h), asset, block_index: c.blockIndex, calling_function: callingFunction, event: c.txHash,
      quantity: jsonQuantity(quantity), tx_index: c.txIndex, block_time: c.blockTime,
    },
  };
}

/** A row of Core's `sends` table journalled as ATTACH_TO_UTXO, DETACH_FROM_UTXO or UTXO_MOVE. */
export function sendEvent(
  c: EventContext,
  event: 'ATTACH_TO_UTXO' | 'DETACH_FROM_UTXO' | 'UTXO_MOVE',
  msgIndex: number,
  fields: Record<string, unknown>,
): CpEventRecord {
  return {
    event,
    tx_hash: c.txHash,
    params: { tx_index: c.txIndex, tx_hash: c.txHash, msg_index: msgIndex, block_index: c.blockIndex, ...fields, block_time: c.blockTime },
  };
}

export function newTransactionEvent(
  c: EventContext & { blockHash: string },
  f: { source: string; destination: string | null; btcAmount: bigint | null; fee: bigint | null; data: string | null; transactionType: string; utxosInfo: string },
): CpEventRecord {
  return {
    event: 'NEW_TRANSACTION',
    tx_hash: c.txHash,
    params: {
      block_hash: c.blockHash, block_index: c.blockIndex, block_time: c.blockTime,
      btc_amount: f.btcAmount === null ? null : jsonQuantity(f.btcAmount), data: f.data, destination: f.destination,
      fee: f.fee === null ? null : jsonQuantity(f.fee), source: f.source, transaction_type: f.transactionType,
      tx_hash: c.txHash, tx_index: c.txIndex, utxos_info: f.utxosInfo,
    },
  };
}

export function transactionParsedEvent(c: EventContext, supported: boolean): CpEventRecord {
  return { event: 'TRANSACTION_PARSED', tx_hash: c.txHash, params: { supported, tx_hash: c.txHash, tx_index: c.txIndex } };
}
