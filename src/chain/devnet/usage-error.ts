/** A caller asked the devnet for something it cannot do (bad amount, unknown address, taken asset name): a 400, not a crash. */
export class DevnetUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevnetUsageError';
  }
}

/**
 * The node a devnet follows refused a control call (Core answered an RPC error, e.g. a block it
 * mined not accepted while another caller mined or invalidated beside it): a 409 to read the
 * chain again and retry, not a crash.
 */
export class DevnetNodeRefused extends Error {
  constructor(readonly method: string, readonly reason: string) {
    super(`devnet: the followed node refused ${method}: ${reason}`);
    this.name = 'DevnetNodeRefused';
  }
}
