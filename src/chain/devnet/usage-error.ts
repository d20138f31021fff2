/** A caller asked the devnet for something it cannot do (bad amount, unknown address, taken asset name): a 400, not a crash. */
export class DevnetUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevnetUsageError';
  }
}
