/**
 * Parsing one block into the Counterparty ledger, the way Core's `parse_block` does: NEW_BLOCK,
 * then every transaction in block order through the pure rules of `src/counterparty`, then
 * BLOCK_PARSED. The devnet's control operations run first, as if they were the block's
 * earliest transactions. Mempool transactions never reach here: they have no ledger effect.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { decodeAddress } from '../../bitcoin/address.js';
import type { Network } from '../../bitcoin/networks.js';
import { assetIdFromName } from '../../counterparty/asset-names.js';
import { attachFeeRaw, type GasParams } from '../../counterparty/attach-fee.js';
import { creditEvent, jsonQuantity, type CpEventRecord } from '../../counterparty/ledger-events.js';
import { applyCounterpartyTx, type TxEffects } from '../../counterparty/ledger-rules.js';
import { readCounterpartyTx, type CpTxView } from '../../counterparty/tx-info.js';
import type { BlockRecord, StoredCoin } from './chain-state.js';
import { opTxHash, type ControlOp } from './control-ops.js';
import type { CpLedger } from './ledger.js';
import type { DecodedTx } from './tx-decode.js';

export interface AttachFeePolicy {
  /** A fixed raw XCP fee; when absent, Core's formula over `gas`. */
  fixedRaw?: bigint;
  gas: GasParams;
}

export interface LedgerParams {
  network: Network;
  attachFee: AttachFeePolicy;
}

/** The attach fee a block at `height` charges. */
export function attachFeeAt(ledger: CpLedger, height: number, policy: AttachFeePolicy): bigint {
  if (policy.fixedRaw !== undefined) return policy.fixedRaw;
  const period = policy.gas.periodBlocks;
  return attachFeeRaw(ledger.attachesBetween(height - period, height), height, policy.gas);
}

export function txView(tx: DecodedTx, prevouts: readonly { value: bigint; script: Uint8Array }[] | null): CpTxView {
  return {
    txid: tx.txid,
    inputs: tx.inputs.map((i, k) => ({
      txid: i.txid, vout: i.vout, scriptSig: i.scriptSig, witness: i.witness,
      prevout: prevouts?.[k] ? { script: prevouts[k].script, value: prevouts[k].value } : null,
    })),
    outputs: tx.outputs,
  };
}

const digest = (s: string): string => bytesToHex(sha256(utf8ToBytes(s)));

/** Applies the balance changes of one transaction's effects to the ledger. */
export function applyEffects(ledger: CpLedger, e: Pick<TxEffects, 'changes' | 'destroyed'>): void {
  for (const c of e.changes) {
    if (c.holder.kind === 'address') ledger.addToAddress(c.holder.address, c.asset, c.delta);
    else ledger.addToUtxo(c.holder.utxo, c.holder.utxoAddress, c.asset, c.delta);
  }
  for (const d of e.destroyed) ledger.changeSupply(d.asset, -d.quantity);
}

export class BlockParser {
  constructor(
    private readonly ledger: CpLedger,
    private readonly params: LedgerParams,
  ) {}

  private readonly isValidAddress = (a: string): boolean => decodeAddress(a, this.params.network).ok;

  /** Opens the block in the ledger and journals NEW_BLOCK. Call `tx` per transaction, then `end`. */
  begin(b: Pick<BlockRecord, 'height' | 'hash' | 'time' | 'bits' | 'prevHash'>): BlockSession {
    this.ledger.beginBlock(b.height);
    const s = new BlockSession(this.ledger, this.params, this.isValidAddress, b);
    s.emit({ event: 'NEW_BLOCK', tx_hash: null, params: {
      block_index: b.height, block_hash: b.hash, block_time: b.time, previous_block_hash: b.height > 0 ? b.prevHash : null, difficulty: b.bits,
    } });
    return s;
  }
}

export class BlockSession {
  private readonly fee: bigint;
  private attaches = 0;
  private listed: string[] = [];

  constructor(
    private readonly ledger: CpLedger,
    private readonly params: LedgerParams,
    private readonly isValidAddress: (a: string) => boolean,
    private readonly block: Pick<BlockRecord, 'height' | 'hash' | 'time' | 'bits' | 'prevHash'>,
  ) {
    this.fee = attachFeeAt(ledger, block.height, params.attachFee);
  }

  emit(e: CpEventRecord): void {
    this.ledger.pushEvent({ event: e.event, tx_hash: e.tx_hash, block_index: this.block.height, block_time: this.block.time, params: e.params });
  }

  tx(tx: DecodedTx, prevouts: readonly StoredCoin[]): void {
    if (tx.isCoinbase) return;
    const info = readCounterpartyTx(txView(tx, prevouts), this.params.network);
    const txIndex = this.ledger.nextTxIndex;
    const effects = applyCounterpartyTx(info, this.ledger, {
      blockIndex: this.block.height, blockHash: this.block.hash, blockTime: this.block.time, txIndex,
      attachFeeRaw: this.fee, attachesEarlierInBlock: this.attaches, isValidAddress: this.isValidAddress,
    });
    if (!effects.listed) return;
    const msg = info.message;
    this.ledger.putTransaction({
      tx_index: txIndex, tx_hash: tx.txid, block_index: this.block.height, block_hash: this.block.hash, block_time: this.block.time,
      source: msg?.source ?? '', destination: msg ? msg.destination : null, btc_amount: msg ? Number(msg.btcAmount) : null,
      fee: msg && info.fee !== null ? Number(info.fee) : null, data: msg ? bytesToHex(msg.data) : null,
      supported: effects.supported, utxos_info: effects.utxosInfo, transaction_type: effects.transactionType,
    });
    applyEffects(this.ledger, effects);
    if (effects.attachCount) {
      this.ledger.countAttach(this.block.height);
      this.attaches += 1;
    }
    for (const e of effects.events) this.emit(e);
    this.listed.push(tx.txid);
  }

  op(op: ControlOp, index: number): void {
    const txHash = opTxHash(this.block.height, index, op);
    const txIndex = this.ledger.nextTxIndex;
    const base = { tx_hash: txHash, tx_index: txIndex, block_index: this.block.height, block_time: this.block.time };
    const ctx = { txHash, txIndex, blockIndex: this.block.height, blockTime: this.block.time };
    const row = { tx_index: txIndex, tx_hash: txHash, block_index: this.block.height, block_hash: this.block.hash, block_time: this.block.time };
    if (op.kind === 'transfer') {
      this.transfer(op, row, base);
      return;
    }
    const quantity = BigInt(op.quantity);
    this.ledger.putTransaction({
      ...row,
      source: op.kind === 'issue' ? op.issuer : '', destination: op.kind === 'credit' ? op.address : null, btc_amount: null, fee: null,
      data: null, supported: true, utxos_info: '', transaction_type: op.kind === 'issue' ? 'issuance' : 'devnet_credit',
    });
    if (op.kind === 'credit') {
      this.ledger.addToAddress(op.address, op.asset, quantity);
      this.ledger.changeSupply(op.asset, quantity);
      this.emit(creditEvent(ctx, { kind: 'address', address: op.address }, op.asset, quantity, 'devnet credit'));
      return;
    }
    const existing = this.ledger.assets.get(op.asset);
    if (!existing) {
      this.ledger.putAsset({
        asset: op.asset, asset_id: assetIdFromName(op.asset).toString(), asset_longname: op.longname, divisible: op.divisible,
        locked: op.locked, supply: quantity, issuer: op.issuer, owner: op.issuer, description: op.description,
        first_issuance_block_index: this.block.height, last_issuance_block_index: this.block.height,
        first_issuance_block_time: this.block.time, last_issuance_block_time: this.block.time,
      });
      this.emit({ event: 'ASSET_CREATION', tx_hash: txHash, params: {
        asset_id: assetIdFromName(op.asset).toString(), asset_name: op.asset, block_index: this.block.height, asset_longname: op.longname, block_time: this.block.time,
      } });
    } else {
      this.ledger.putAsset({
        ...existing, supply: existing.supply + quantity, locked: existing.locked || op.locked,
        last_issuance_block_index: this.block.height, last_issuance_block_time: this.block.time,
      });
    }
    this.emit({ event: 'ASSET_ISSUANCE', tx_hash: txHash, params: {
      ...base, msg_index: 0, asset: op.asset, quantity: jsonQuantity(quantity), divisible: op.divisible, source: op.issuer,
      issuer: op.issuer, transfer: false, callable: false, call_date: 0, call_price: 0, description: op.description,
      mime_type: 'text/plain', fee_paid: 0, locked: op.locked, description_locked: false, reset: false, status: 'valid',
      asset_longname: op.longname ?? existing?.asset_longname ?? null, asset_events: existing ? 'reissuance' : 'creation',
    } });
    if (quantity > 0n) {
      this.ledger.addToAddress(op.issuer, op.asset, quantity);
      this.emit(creditEvent(ctx, { kind: 'address', address: op.issuer }, op.asset, quantity, 'issuance'));
    }
    this.listed.push(txHash);
  }

  /**
   * As Core records a transfer: an issuance of no units whose source is the old owner and whose
   * issuer is the new one. The asset's first `issuer` stays; its `owner` (the latest issuance's
   * issuer) becomes the new holder of the rights.
   */
  private transfer(
    op: Extract<ControlOp, { kind: 'transfer' }>,
    row: { tx_index: number; tx_hash: string; block_index: number; block_hash: string; block_time: number },
    base: { tx_hash: string; tx_index: number; block_index: number; block_time: number },
  ): void {
    const existing = this.ledger.assets.get(op.asset);
    if (!existing) throw new Error(`devnet: transfer of unknown asset ${op.asset}`);
    this.ledger.putTransaction({ ...row, source: op.from, destination: op.to, btc_amount: null, fee: null, data: null, supported: true, utxos_info: '', transaction_type: 'issuance' });
    this.ledger.putAsset({ ...existing, owner: op.to, last_issuance_block_index: this.block.height, last_issuance_block_time: this.block.time });
    this.emit({ event: 'ASSET_ISSUANCE', tx_hash: base.tx_hash, params: {
      ...base, msg_index: 0, asset: op.asset, quantity: 0, divisible: existing.divisible, source: op.from,
      issuer: op.to, transfer: true, callable: false, call_date: 0, call_price: 0, description: existing.description,
      mime_type: 'text/plain', fee_paid: 0, locked: false, description_locked: false, reset: false, status: 'valid',
      asset_longname: existing.asset_longname, asset_events: 'transfer',
    } });
    this.listed.push(base.tx_hash);
  }

  end(): void {
    const events = this.ledger.eventsByBlock.get(this.block.height) ?? [];
    const summary = {
      block_index: this.block.height, block_hash: this.block.hash, block_time: this.block.time,
      previous_block_hash: this.block.height > 0 ? this.block.prevHash : null, difficulty: this.block.bits,
      transaction_count: this.listed.length,
      // Not Core's consensus hashes (the devnet has no ledger history to chain them from), but
      // stable digests of the same inputs, so a client can still compare two blocks' content.
      ledger_hash: digest(`ledger:${this.block.hash}:${events.length}`),
      txlist_hash: digest(`txlist:${this.listed.join(',')}`),
      messages_hash: digest(`messages:${JSON.stringify(events.map((e) => [e.event, e.tx_hash]))}`),
    };
    this.ledger.putBlock(summary);
    this.emit({ event: 'BLOCK_PARSED', tx_hash: null, params: {
      block_index: summary.block_index, ledger_hash: summary.ledger_hash, txlist_hash: summary.txlist_hash,
      messages_hash: summary.messages_hash, transaction_count: summary.transaction_count, block_time: summary.block_time,
    } });
    this.ledger.endBlock();
  }
}
