import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SlotGrant, SlotRequest, StreamSlots } from './stream-slots.js';
import { withTimeout } from '../util/stall-aware-timeout.js';

/**
 * One sorted set per key: a member per open stream, scored by when it expires (the server's
 * clock, so instances need not agree on time). Taking drops expired members, checks every key,
 * then adds to every key, in one script: all or none, atomic across instances.
 */
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[2 + i]) then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + ttl, ARGV[1])
  redis.call('PEXPIRE', key, ttl)
end
return 0`;

/** Pushes the expiry of this instance's live slots on (only members still there: a released one stays gone). */
const RENEW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  if redis.call('ZSCORE', key, ARGV[1 + i]) then
    redis.call('ZADD', key, now + ttl, ARGV[1 + i])
    redis.call('PEXPIRE', key, ttl)
  end
end
return 0`;

type SlotCommands = Redis & {
  streamSlotTake(n: number, ...args: string[]): Promise<number>;
  streamSlotRenew(n: number, ...args: string[]): Promise<number>;
};

export interface RedisStreamSlotsOptions {
  client: Redis;
  /** Namespace on a shared server; the slots add `ss:` after it. */
  prefix: string;
  /** How long a slot lives without its instance renewing it: a crashed instance's streams free their slots after this. */
  ttlMs?: number;
  /** How long a take waits for Redis before it fails (the stream is then admitted uncounted); default 500 ms. */
  timeoutMs?: number;
  /** Where a failed renewal or release is told (the slot then expires by itself). */
  onError?: (e: unknown) => void;
}

/**
 * Stream slots shared by every instance on one Redis. Each instance renews its open streams'
 * slots every third of the TTL; one that dies stops renewing, and its slots expire within the
 * TTL instead of holding an IP's or an address's streams forever.
 */
export class RedisStreamSlots implements StreamSlots {
  private readonly client: SlotCommands;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;
  /** Open slots of this instance: member → its keys. */
  private readonly live = new Map<string, string[]>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly o: RedisStreamSlotsOptions) {
    this.client = o.client as SlotCommands;
    this.prefix = `${o.prefix}ss:`;
    this.ttlMs = o.ttlMs ?? 30_000;
    // ioredis sends each by EVALSHA and falls back to EVAL when the server lost the script.
    if (!this.client.streamSlotTake) {
      this.client.defineCommand('streamSlotTake', { lua: TAKE_LUA });
      this.client.defineCommand('streamSlotRenew', { lua: RENEW_LUA });
    }
    this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  async take(list: readonly SlotRequest[]): Promise<SlotGrant> {
    if (list.length === 0) return { release: () => {} };
    const keys = list.map((r) => this.prefix + r.key);
    const member = `${this.instance}:${++this.sequence}`;
    // Bounded: a hung Redis must not hold a new stream for the client's 2 s command timeout. A take
    // that lands after its timeout is never renewed, so its slot expires within the TTL.
    const taking = this.client.streamSlotTake(keys.length, ...keys, member, String(this.ttlMs), ...list.map((r) => String(r.limit)));
    let full: number;
    try {
      full = await withTimeout(taking, this.o.timeoutMs ?? 500);
    } catch (e) {
      // The stream goes through uncounted, but the take may still land: its slot is given back
      // when it does, not held for the TTL (CI saw one IP's streams refused 429 for that long).
      taking.then((f) => f === 0 && this.give(keys, member)).catch(() => undefined);
      throw e;
    }
    if (full > 0) return { full: list[full - 1]!.key };
    this.live.set(member, keys);
    return {
      release: () => {
        if (this.live.delete(member)) this.give(keys, member);
      },
    };
  }

  /** Removes `member` from its keys (a release, or a take that landed after its bound). */
  private give(keys: string[], member: string): void {
    const multi = this.client.multi();
    for (const k of keys) multi.zrem(k, member);
    multi.exec().catch((e: unknown) => this.o.onError?.(e));
  }

  private async renew(): Promise<void> {
    if (this.live.size === 0) return;
    const keys: string[] = [];
    const members: string[] = [];
    for (const [member, ks] of this.live) {
      for (const k of ks) {
        keys.push(k);
        members.push(member);
      }
    }
    await this.client.streamSlotRenew(keys.length, ...keys, String(this.ttlMs), ...members).catch((e: unknown) => this.o.onError?.(e));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}
