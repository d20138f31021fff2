/**
 * A wallet as the client's flows use it: the `WalletSigner` (address, signPsbt, signMessage) and
 * what the market asks of a wallet besides signatures: its public key (a collection offer's
 * `bidder_pubkey` is the x-only key; a co-signed listing's `seller_tap_internal_key` too).
 */
import type { WalletSigner } from '../flow.js';
import type { Network } from '../psbt.js';
import type { AddressType, MessageProtocol } from './message.js';

export interface Wallet extends WalletSigner {
  readonly type: AddressType;
  readonly network: Network;
  /** 33-byte compressed public key, hex. */
  readonly publicKey: string;
  /** 32-byte x-only key, hex: `bidder_pubkey` of a collection offer, the taproot internal key. */
  readonly bidder_pubkey: string;
  signMessage(message: string, protocol?: MessageProtocol): Promise<string>;
}
