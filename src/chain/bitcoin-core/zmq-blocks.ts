import type { Logger } from 'pino';
import type { BlockNotices } from '../ports.js';

/**
 * Bitcoin Core's ZMQ `hashblock` notifications (`-zmqpubhashblock=<endpoint>`): a SUB socket on
 * the endpoint, topic `hashblock`. Each message is three frames: the topic, the block hash (32
 * bytes, in the order RPC prints it) and a 4-byte little-endian sequence number. A gap in the
 * sequence means notices were lost (ZMQ drops them while the socket lags or reconnects); it is
 * logged and nothing else is needed, since the listener checks the tip on a timer anyway
 * (ports.ts, BlockNotices). The socket connects and reconnects by itself, so a node that is down
 * or restarting costs nothing but the notices. `zeromq` is loaded only when this is configured.
 */
export class ZmqBlockNotices implements BlockNotices {
  private socket: { close(): void } | null = null;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly endpoint: string,
    private readonly logger: Pick<Logger, 'warn' | 'debug'>,
  ) {}

  async start(onBlock: (hash: string) => void): Promise<void> {
    if (this.socket) throw new Error('ZmqBlockNotices: already started');
    const { Subscriber } = await import('zeromq');
    const sub = new Subscriber();
    sub.connect(this.endpoint);
    sub.subscribe('hashblock');
    this.socket = sub;
    let last: number | null = null;
    this.loop = (async () => {
      try {
        for await (const [topic, body, seq] of sub) {
          if (topic?.toString() !== 'hashblock' || body?.length !== 32) {
            this.logger.warn({ endpoint: this.endpoint, topic: topic?.toString(), bytes: body?.length }, 'zmq: not a hashblock notice; ignored');
            continue;
          }
          const n = seq?.length === 4 ? seq.readUInt32LE(0) : null;
          if (last !== null && n !== null && n !== ((last + 1) >>> 0)) this.logger.warn({ endpoint: this.endpoint, after: last, got: n }, 'zmq: hashblock notices lost; the timed tip check covers them');
          last = n;
          onBlock(Buffer.from(body).toString('hex'));
        }
      } catch (e) {
        // Closing the socket ends the iteration with an error; anything else is worth a line.
        if (this.socket) this.logger.warn({ endpoint: this.endpoint, err: e instanceof Error ? e.message : String(e) }, 'zmq: hashblock subscription ended');
      }
    })();
  }

  async close(): Promise<void> {
    const s = this.socket;
    this.socket = null;
    s?.close();
    await this.loop;
    this.loop = null;
  }
}
