/**
 * The CPU of the market's signature checks, for `checkout1_verify_cpu_ms`: the active secp256k1
 * backend's two curve calls (ECDSA, BIP-340) are wrapped so each call's process CPU is added up.
 * Calls made while the in-process devnet relays a transaction (it checks every signature again,
 * as Bitcoin Core would) are not the market's and are left out: the caller says when the devnet
 * is busy. process.cpuUsage() costs about a microsecond, against some 50-100 µs per check.
 */
import { secpBackend } from '../src/bitcoin/secp.js';

export interface SignatureMeter {
  /** The market's signature-check CPU since the last take, ms, and how many checks. */
  take(): { ms: number; checks: number };
  /** Set while the devnet (not the market) is running. */
  devnetBusy: boolean;
  restore(): void;
}

export function meterSignatureChecks(): SignatureMeter {
  const b = secpBackend() as { ecdsa: (...a: Uint8Array[]) => boolean; schnorr: (...a: Uint8Array[]) => boolean };
  const original = { ecdsa: b.ecdsa, schnorr: b.schnorr };
  let us = 0;
  let checks = 0;
  const meter: SignatureMeter = {
    devnetBusy: false,
    take() {
      const r = { ms: us / 1000, checks };
      us = 0;
      checks = 0;
      return r;
    },
    restore() {
      Object.assign(b, original);
    },
  };
  for (const name of ['ecdsa', 'schnorr'] as const) {
    const inner = original[name];
    b[name] = (...args: Uint8Array[]) => {
      if (meter.devnetBusy) return inner(...args);
      const c0 = process.cpuUsage();
      try {
        return inner(...args);
      } finally {
        const c = process.cpuUsage(c0);
        us += c.user + c.system;
        checks++;
      }
    };
  }
  return meter;
}
