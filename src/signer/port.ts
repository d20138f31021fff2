/**
 * How the API reaches the market signer: in process on the embedded default, or over HTTP
 * (`SIGNER_URL`) to a separate `npm run signer`. When it cannot be reached, every route that
 * needs it answers 503 service_unavailable; nothing else depends on it.
 */
import type { CancelRequest, CancelResult, CosignRequest, CosignResult, MarketSigner } from './service.js';
import { KeyRefused, type RefusalCode, type SignerKey } from './keys.js';
import type { ListingCosignRequest, ListingCosignResult, ListingRevokeResult } from './listing-cosign.js';

export interface SignerPort {
  info(): Promise<{ current: SignerKey; keys: SignerKey[] }>;
  cosign(req: CosignRequest): Promise<CosignResult>;
  cancel(req: CancelRequest): Promise<CancelResult>;
  cosignListing(req: ListingCosignRequest): Promise<ListingCosignResult>;
  revokeListing(listingId: string, outpoint: string): Promise<ListingRevokeResult>;
}

/** The signer could not be reached (down, timed out, answering 5xx). */
export class SignerUnavailable extends Error {}

/** The signer answered and refused, with a published code. */
export class SignerRefused extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
    readonly extras: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class InProcessSigner implements SignerPort {
  constructor(private readonly signer: MarketSigner) {}

  private run<T>(f: () => T): Promise<T> {
    try {
      return Promise.resolve(f());
    } catch (e) {
      if (e instanceof KeyRefused) return Promise.reject(new SignerRefused(e.code, e.message, e.extras));
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  info() {
    return this.run(() => this.signer.info());
  }
  cosign(req: CosignRequest) {
    return this.run(() => this.signer.cosign(req));
  }
  cancel(req: CancelRequest) {
    return this.run(() => this.signer.cancel(req));
  }
  cosignListing(req: ListingCosignRequest) {
    return this.run(() => this.signer.cosignListing(req));
  }
  revokeListing(listingId: string, outpoint: string) {
    return this.run(() => this.signer.revokeListing(listingId, outpoint));
  }
}

export class HttpSigner implements SignerPort {
  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly timeoutMs = 5_000,
  ) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.url.replace(/\/$/, '')}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new SignerUnavailable(`market signer unreachable: ${e instanceof Error ? e.message : String(e)}`);
    }
    const text = await res.text().catch(() => '');
    let json: { result?: T; code?: string; refusal_code?: RefusalCode; error?: string; signed_txid?: string } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      throw new SignerUnavailable(`market signer answered ${res.status} with no JSON`);
    }
    if (res.ok && json.result !== undefined) return json.result;
    if (res.status === 422 && json.refusal_code) {
      throw new SignerRefused(json.refusal_code, json.error ?? json.refusal_code, typeof json.signed_txid === 'string' ? { signed_txid: json.signed_txid } : {});
    }
    throw new SignerUnavailable(`market signer answered ${res.status}: ${json.error ?? text.slice(0, 200)}`);
  }

  info() {
    return this.call<{ current: SignerKey; keys: SignerKey[] }>('GET', '/signer/keys');
  }
  cosign(req: CosignRequest) {
    return this.call<CosignResult>('POST', '/signer/cosign', req);
  }
  cancel(req: CancelRequest) {
    return this.call<CancelResult>('POST', '/signer/cancel', req);
  }
  cosignListing(req: ListingCosignRequest) {
    return this.call<ListingCosignResult>('POST', '/signer/listings/cosign', req);
  }
  revokeListing(listingId: string, outpoint: string) {
    return this.call<ListingRevokeResult>('POST', '/signer/listings/revoke', { listing_id: listingId, outpoint });
  }
}

/**
 * The in-process signer, opened on first use (its directory is created only by a market that
 * needs it), closed with the service.
 */
export class LazyInProcessSigner implements SignerPort {
  private opened: { port: InProcessSigner; close(): void } | undefined;

  constructor(private readonly open: () => { signer: MarketSigner; close(): void }) {}

  private get port(): InProcessSigner {
    if (!this.opened) {
      const o = this.open();
      this.opened = { port: new InProcessSigner(o.signer), close: o.close };
    }
    return this.opened.port;
  }

  info() {
    return this.port.info();
  }
  cosign(req: CosignRequest) {
    return this.port.cosign(req);
  }
  cancel(req: CancelRequest) {
    return this.port.cancel(req);
  }
  cosignListing(req: ListingCosignRequest) {
    return this.port.cosignListing(req);
  }
  revokeListing(listingId: string, outpoint: string) {
    return this.port.revokeListing(listingId, outpoint);
  }
  close(): void {
    this.opened?.close();
    this.opened = undefined;
  }
}

