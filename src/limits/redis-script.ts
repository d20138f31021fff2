import { createHash } from 'node:crypto';

/**
 * The whole decision for one request, run atomically by Redis so concurrent
 * requests (from any number of API processes) cannot both take the last slot.
 * Same rules as limiter.ts: a sorted set per bucket, scored by the counted
 * request's time; entries with score <= now - window have left the window;
 * only the newest `limit` entries are kept; count in every bucket or in none.
 *
 * KEYS: the buckets' prefixed keys (distinct).
 * ARGV: now, cutoff (= now - window, passed in so Lua never formats a large
 *       number), member (unique per request, so equal timestamps stay
 *       distinct entries), ttl ms, window ms, then one limit per key.
 * Reply: {1} when counted; {0, retryAfterMs, index of the refusing key (1-based)}.
 */
export const SLIDING_WINDOW_LUA = `
local now = tonumber(ARGV[1])
local cutoff = ARGV[2]
local member = ARGV[3]
local ttl = ARGV[4]
local window = tonumber(ARGV[5])
local wait, refusing = -1, 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[5 + i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
  redis.call('ZREMRANGEBYRANK', key, 0, -(limit + 1))
  if redis.call('ZCARD', key) >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    local w = tonumber(oldest[2]) + window - now
    if w > wait then
      wait = w
      refusing = i
    end
  end
end
if refusing > 0 then
  return {0, wait, refusing}
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[1], member)
  redis.call('PEXPIRE', key, ttl)
end
return {1}
`;

export const SLIDING_WINDOW_SHA = createHash('sha1').update(SLIDING_WINDOW_LUA).digest('hex');
