/**
 * The store's atomic steps, as Lua run inside Redis (one round trip, no race between replicas).
 * Numbers cross as strings: Redis truncates a Lua number reply to an integer.
 */

/**
 * A token bucket per client, refilled continuously at ARGV[1] calls per minute, clocked by Redis's
 * own TIME (replicas' clocks may differ). KEYS[1]: the bucket. Returns {1, "0"} when a call is
 * admitted (one token spent), {0, ms} with the milliseconds until one is.
 */
export const SPEND_CALL = `
local rate = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or rate
local at = tonumber(b[2]) or now
tokens = math.min(rate, tokens + math.max(0, now - at) / 60000 * rate)
if tokens < 1 then
  return {0, tostring(math.ceil((1 - tokens) / rate * 60000))}
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 61000)
return {1, '0'}
`;

/**
 * Gives back one call to KEYS[1]'s bucket (ARGV[1] calls per minute): a call that spent it never ran
 * (its turn never came). Capped at the bucket's size; a bucket that expired is full already.
 */
export const REFUND_CALL = `
local rate = tonumber(ARGV[1])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
if not b[1] then return 1 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = tonumber(b[2]) or now
local tokens = math.min(rate, tonumber(b[1]) + math.max(0, now - at) / 60000 * rate + 1)
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 61000)
return 1
`;

/**
 * Writes a session's record as owned by ARGV[1], if nobody owns it, ARGV[1] does, or ARGV[2] (the
 * owner it is taken over from) still does. KEYS[1]: the session. ARGV[3]: the record, ARGV[4]: TTL ms.
 * Returns 1 when written, 0 when another replica owns it.
 */
export const WRITE_SESSION = `
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner and owner ~= ARGV[1] and owner ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'record', ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
`;

/** Deletes KEYS[1] if ARGV[1] owns it. */
export const DROP_SESSION = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/** Extends KEYS[1]'s life to ARGV[2] ms if ARGV[1] owns it. */
export const TOUCH_SESSION = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) end
return 1
`;
