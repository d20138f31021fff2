/**
 * The Counterparty ledger rules for UTXO balances as pure functions: given what Core reads from
 * a confirmed transaction (`readCounterpartyTx`) and the balances before it, compute the balance
 * changes and the events Core journals. Follows `parser/blocks.py parse_tx` with
 * `spend_utxo_to_detach` on:
 *
 * - Inputs "with balances" are taken before the transaction (Core's `utxos_info`).
 * - Attach (101): validated, then the fee is destroyed, the asset moves from the source address
 *   to the destination output; afterwards any attached inputs move like a plain spend.
 * - Detach (102): every input with balances is detached to the payload address, or to the
 *   address that owned the UTXO when the payload names no valid address. No move happens.
 * - Anything else (no message, a dropped message, another type): attached inputs move to the
 *   first non-OP_RETURN output, or, when every output is OP_RETURN, detach to their owner.
 * - An invalid attach changes no balance and journals an `invalid: …` ATTACH_TO_UTXO.
 * - A message preceded by two or more address outputs is not parsed at all (Core requires a
 *   single `destination`): put the OP_RETURN first, or after at most one address output.
 */
import { BTC, MAX_QUANTITY, XCP } from './asset-names.js';
import { decodeAttachPayload, decodeDetachPayload } from './attach-detach.js';
import {
  creditEvent, debitEvent, jsonQuantity, newTransactionEvent, sendEvent, transactionParsedEvent,
  type CpEventRecord, type EventContext, type Holder,
} from './ledger-events.js';
import { ATTACH_ID, DETACH_ID, MESSAGE_TYPE_NAMES } from './message.js';
import type { CpTxInfo } from './tx-info.js';
import { LedgerOverlay, type LedgerReader } from './ledger-overlay.js';

export type { LedgerReader, UtxoHolding } from './ledger-overlay.js';

export interface TxContext {
  blockIndex: number;
  blockHash: string;
  blockTime: number;
  /** The tx_index this transaction gets if Core lists it. */
  txIndex: number;
  /** The attach fee in force for this block (raw XCP). */
  attachFeeRaw: bigint;
  /** Valid attaches parsed earlier in the same block (Core's per-block gas counter). */
  attachesEarlierInBlock: number;
  /** Core's `address.validate` for the node's network. */
  isValidAddress(address: string): boolean;
}

export interface BalanceChange {
  holder: Holder;
  asset: string;
  /** Negative for a debit. */
  delta: bigint;
}

export interface TxEffects {
  /** Core stores the transaction (and spends a tx_index) only when this is true. */
  listed: boolean;
  /** Core's TRANSACTION_PARSED `supported`. */
  supported: boolean;
  transactionType: string;
  utxosInfo: string;
  changes: BalanceChange[];
  /** Quantities destroyed (the attach fee), for supply accounting. */
  destroyed: { asset: string; quantity: bigint }[];
  /** 1 when a valid attach incremented the gas counter. */
  attachCount: number;
  events: CpEventRecord[];
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** Apply the rules to one confirmed transaction. Never throws on hostile input. */
export function applyCounterpartyTx(info: CpTxInfo, reader: LedgerReader, ctx: TxContext): TxEffects {
  const ledger = new LedgerOverlay(reader);
  const ev: EventContext = { txHash: info.txHash, txIndex: ctx.txIndex, blockIndex: ctx.blockIndex, blockTime: ctx.blockTime };
  const sources = info.inputs.filter((i) => ledger.utxoHasBalance(i.utxo)).map((i) => i.utxo);
  const destination = info.firstNonOpReturnVout === null ? null : `${info.txHash}:${info.firstNonOpReturnVout}`;
  const utxosInfo = [sources.join(','), destination ?? '', String(info.outputsCount), info.opReturnVout === null ? '' : String(info.opReturnVout)].join(' ');
  const msg = info.message;
  const typeId = msg && msg.data.length > 1 ? msg.typeId : null;
  const transactionType = msg
    ? ((typeId !== null ? MESSAGE_TYPE_NAMES[typeId] : undefined) ?? 'unknown')
    : sources.length > 0 ? 'utxomove' : 'unknown';
  const effects: TxEffects = {
    listed: Boolean(msg) || sources.length > 0,
    supported: true,
    transactionType,
    utxosInfo,
    changes: ledger.changes,
    destroyed: [],
    attachCount: 0,
    events: [],
  };
  if (!effects.listed) return effects;

  const events = effects.events;
  let sends = 0; // Core's per-transaction msg_index over the `sends` table
  const ownOutput = (vout: number): Holder => ({ kind: 'utxo', utxo: `${info.txHash}:${vout}`, utxoAddress: info.outputAddresses[vout] ?? null });
  const transfer = (from: Holder, to: Holder, asset: string, quantity: bigint, action: string): void => {
    ledger.move(from, to, asset, quantity);
    events.push(debitEvent(ev, from, asset, quantity, action), creditEvent(ev, to, asset, quantity, action));
  };

  const detachAll = (source: string, to: string | null): void => {
    const dest = to !== null && ctx.isValidAddress(to) ? to : null;
    for (const b of ledger.utxoBalances(source)) {
      const target = dest ?? b.utxoAddress;
      if (b.quantity === 0n || target === null) continue;
      const from: Holder = { kind: 'utxo', utxo: source, utxoAddress: b.utxoAddress };
      transfer(from, { kind: 'address', address: target }, b.asset, b.quantity, 'detach from utxo');
      events.push(sendEvent(ev, 'DETACH_FROM_UTXO', sends++, {
        status: 'valid', source, source_address: b.utxoAddress, destination: target, asset: b.asset,
        quantity: jsonQuantity(b.quantity), fee_paid: 0, send_type: 'detach',
      }));
    }
  };

  const moveAll = (): boolean => {
    if (sources.length === 0) return false;
    for (const source of sources) {
      if (info.firstNonOpReturnVout === null) {
        detachAll(source, null); // a lone OP_RETURN output: the balances go home
        continue;
      }
      const to = ownOutput(info.firstNonOpReturnVout);
      for (const b of ledger.utxoBalances(source)) {
        if (b.quantity === 0n) continue;
        transfer({ kind: 'utxo', utxo: source, utxoAddress: b.utxoAddress }, to, b.asset, b.quantity, 'utxo move');
        events.push(sendEvent(ev, 'UTXO_MOVE', sends++, {
          status: 'valid', source, source_address: b.utxoAddress, destination: destination, destination_address: to.kind === 'utxo' ? to.utxoAddress : null,
          asset: b.asset, quantity: jsonQuantity(b.quantity), send_type: 'move',
        }));
      }
    }
    return true;
  };

  const attach = (source: string, payload: Uint8Array): void => {
    const { asset, quantity, destinationVout } = decodeAttachPayload(payload);
    const problems: string[] = [];
    if (asset === BTC) problems.push('cannot send bitcoins');
    if (quantity <= 0n) problems.push('quantity must be greater than zero');
    if (quantity > MAX_QUANTITY) problems.push('integer overflow');
    const fee = ctx.attachFeeRaw;
    if (problems.length === 0) {
      const held = ledger.addressBalance(source, asset);
      if (asset === XCP) {
        if (held < quantity + fee) problems.push('insufficient funds for transfer and fee');
      } else {
        if (held < quantity) problems.push('insufficient funds for transfer');
        if (fee > 0n && ledger.addressBalance(source, XCP) < fee) problems.push('insufficient funds for fee');
      }
      if (destinationVout !== null && destinationVout < 0n) problems.push('destination vout must be greater than or equal to zero');
    }
    let vout: number | null = null;
    if (destinationVout === null) {
      vout = info.firstNonOpReturnVout;
      if (vout === null) problems.push('no UTXO to attach to');
    } else {
      if (info.outputsCount > 0 && destinationVout > BigInt(info.outputsCount - 1)) problems.push('destination vout is greater than the number of outputs');
      if (info.opReturnVout !== null && destinationVout === BigInt(info.opReturnVout)) problems.push('destination vout is an OP_RETURN output');
      if (destinationVout >= 0n && destinationVout < BigInt(info.outputsCount)) vout = Number(destinationVout);
    }
    if (problems.length > 0 || vout === null) {
      events.push(sendEvent(ev, 'ATTACH_TO_UTXO', sends++, { status: `invalid: ${problems.join('; ')}`, send_type: 'attach' }));
      return;
    }
    const from: Holder = { kind: 'address', address: source };
    if (fee > 0n) {
      ledger.debit(from, XCP, fee);
      effects.destroyed.push({ asset: XCP, quantity: fee });
      events.push(debitEvent(ev, from, XCP, fee, 'attach to utxo fee'), {
        event: 'ASSET_DESTRUCTION',
        tx_hash: info.txHash,
        params: {
          tx_index: ctx.txIndex, tx_hash: info.txHash, block_index: ctx.blockIndex, source, asset: XCP,
          quantity: jsonQuantity(fee), tag: 'attach to utxo fee', status: 'valid', block_time: ctx.blockTime,
        },
      });
    }
    effects.attachCount = 1;
    events.push({
      event: 'INCREMENT_TRANSACTION_COUNT',
      tx_hash: info.txHash,
      params: { block_index: ctx.blockIndex, transaction_id: ATTACH_ID, count: ctx.attachesEarlierInBlock + 1 },
    });
    const to = ownOutput(vout);
    transfer(from, to, asset, quantity, 'attach to utxo');
    events.push(sendEvent(ev, 'ATTACH_TO_UTXO', sends++, {
      status: 'valid', source, destination: `${info.txHash}:${vout}`, destination_address: to.kind === 'utxo' ? to.utxoAddress : null,
      asset, quantity: jsonQuantity(quantity), fee_paid: jsonQuantity(fee), send_type: 'attach',
    }));
  };

  events.push(newTransactionEvent({ ...ev, blockHash: ctx.blockHash }, {
    source: msg?.source ?? '',
    destination: msg ? msg.destination : null,
    btcAmount: msg ? msg.btcAmount : null,
    fee: msg ? info.fee : null,
    data: msg ? hex(msg.data) : null,
    transactionType,
    utxosInfo,
  }));
  let moved = false;
  if (typeId !== ATTACH_ID && typeId !== DETACH_ID) moved = moveAll();
  // Core's parse_tx stops here when more than one address output precedes the data
  // (`len(destination.split("-")) > 1`): the message is not parsed, and an attach or detach
  // moves nothing either, so attached inputs it spends keep their balances on spent outputs.
  const ambiguous = msg !== null && msg.destination.includes('-');
  if (msg && !ambiguous) {
    if (typeId === ATTACH_ID && msg.payload) {
      attach(msg.source, msg.payload);
      moved = moveAll();
    } else if (typeId === DETACH_ID && msg.payload) {
      const to = decodeDetachPayload(msg.payload);
      for (const s of sources) detachAll(s, to);
    } else effects.supported = false; // a type this ledger does not implement (Core: unsupported)
  }
  effects.supported = effects.supported || moved;
  events.push(transactionParsedEvent(ev, effects.supported));
  return effects;
}
