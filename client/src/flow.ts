/**
 * What every flow shares: the wallet that signs (nothing here holds keys), progress reports, and
 * the two rules of a signed submission. A submission whose outcome is uncertain (timeout, network
 * error, 502/503/504, broadcast_unknown, an untrustworthy 2xx) is never answered by signing again:
 * the flow reads the saved operation back and returns it when it moved, or throws a MarketError
 * carrying `resubmit`, the exact signed bytes to send again (identical bytes are idempotent).
 * A completion that has such a read is sent once (the read comes before any resend); one that has
 * none (funded offers, an authorization's activation, an exact accept) is resent by the transport
 * with the identical bytes, which the contract makes safe.
 * Waiting for an outcome polls a read until it settles, never by a fixed sleep the caller cannot
 * shorten.
 */
import { MarketError } from './errors.js';
import type { Network } from './psbt.js';
import type { Transport } from './transport.js';

export type Sighash = 'ALL' | 'DEFAULT' | 'SINGLE|ANYONECANPAY';

export interface WalletSigner {
  address: string;
  /** Signs `inputsToSign` of the PSBT with `sighash` and returns the PSBT (hex). */
  signPsbt(psbtHex: string, inputsToSign: number[], sighash: Sighash): Promise<string>;
  /** A BIP-322 simple signature (base64) of `message`. */
  signMessage(message: string): Promise<string>;
}

export type Progress = (step: string, detail?: Record<string, unknown>) => void;

export interface FlowContext {
  http: Transport;
  signer: WalletSigner;
  network?: Network;
  progress?: Progress;
}

export interface WaitOptions {
  /** Between two reads (default 10 s: the indexer runs every 2 minutes). */
  intervalMs?: number;
  /** Give up after this long (default 15 minutes): `timeout`, carrying the last state read. */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
}

export async function submitSigned<T>(ctx: FlowContext, submit: () => Promise<T>, readBack: () => Promise<T | undefined>, resubmit: Record<string, unknown>): Promise<T> {
  try {
    return await submit();
  } catch (e) {
    if (!(e instanceof MarketError) || !e.uncertain) throw e;
    ctx.progress?.('uncertain', { code: e.code });
    const saved = await readBack().catch(() => undefined);
    if (saved !== undefined) return saved;
    throw new MarketError(e.code, `${e.message}; resubmit the same signed bytes (extras.resubmit), never sign again`, e.status, { ...e.extras, resubmit });
  }
}

/**
 * The steps of a quoted template before anything is sent: `verify` (throws on any mismatch), then
 * `verified`, then the wallet signs (`sign`), then `signed` with `detail` of what it signed.
 */
export async function verifyAndSign<S>(ctx: FlowContext, verify: () => unknown, sign: (signer: WalletSigner) => Promise<S>, detail?: (signed: S) => Record<string, unknown>): Promise<S> {
  verify();
  ctx.progress?.('verified');
  const signed = await sign(ctx.signer);
  if (detail) ctx.progress?.('signed', detail(signed));
  else ctx.progress?.('signed');
  return signed;
}

/**
 * Sends signed bytes the contract makes safe to send again (identical bytes are idempotent):
 * nothing to read back, so an uncertain outcome is resent by the transport and otherwise throws
 * with `resubmit`, never signs again. Reports `step` with `detail` of the answer.
 */
export async function submitResendable<T>(ctx: FlowContext, submit: () => Promise<T>, resubmit: Record<string, unknown>, step: string, detail: (answer: T) => Record<string, unknown>): Promise<T> {
  const answer = await submitSigned(ctx, submit, async () => undefined, resubmit);
  ctx.progress?.(step, detail(answer));
  return answer;
}

/** Reads until `settled` says done (returns it) or failed (throws operation_failed); `timeout` past the deadline. */
export async function waitFor<T>(read: () => Promise<T>, settled: (x: T) => 'done' | 'failed' | 'pending', o: WaitOptions & { progress?: Progress; what: string }): Promise<T> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + (o.timeoutMs ?? 15 * 60_000);
  for (;;) {
    const x = await read();
    const s = settled(x);
    if (s === 'done') return x;
    if (s === 'failed') throw new MarketError('operation_failed', `${o.what} ended without completing`, null, { operation: x });
    if (o.signal?.aborted) throw new MarketError('aborted', `stopped waiting for ${o.what}`, null, { operation: x });
    if (Date.now() > deadline) throw new MarketError('timeout', `${o.what} still pending`, null, { operation: x });
    o.progress?.('waiting', { what: o.what });
    await sleep(o.intervalMs ?? 10_000);
  }
}
