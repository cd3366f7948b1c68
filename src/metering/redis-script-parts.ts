/**
 * What the hot counters' scripts (redis-hot-scripts.ts, redis-load-scripts.ts) share: the Lua
 * helpers each is given as its `prelude`, and the names of an account's keys.
 */

/**
 * An integer as its decimal digits, for a command's argument (issue 31, branch redis-bodies): a
 * Lua number handed to redis.call is written with "%.17g", a floating-point conversion that cost
 * more than most of the commands it fed (callgrind of Redis 7.0); "%d" of the same integer gives
 * the same digits. Money and times are integers below 2^53, exact in Lua's doubles.
 */
export const DIGITS = `
local function digits(n)
  return string.format('%d', n)
end
`;

/**
 * Drops expired holds of one account (a request whose instance died never settles them). Returns
 * what it took off the account's held (its caller may have read held before).
 */
export const SWEEP = `
local function sweep(owner, hash, zset, now)
  local expired = redis.call('ZRANGEBYSCORE', zset, '-inf', now, 'LIMIT', 0, 500)
  local freed = 0
  local leased = 0
  for _, id in ipairs(expired) do
    local amount = redis.call('HGET', hash, id)
    if amount then
      freed = freed + tonumber(amount)
      if string.sub(id, 1, 6) == 'lease:' then leased = leased + tonumber(amount) end
      redis.call('HDEL', hash, id)
    end
    redis.call('ZREM', zset, id)
  end
  if freed > 0 then redis.call('HINCRBY', owner, 'held', -freed) end
  if leased > 0 then redis.call('HINCRBY', owner, 'lsum', -leased) end
  return freed
end
local function num(key, field)
  return tonumber(redis.call('HGET', key, field) or '0')
end
`;

/**
 * An instance's outage lease on a user: a hold with the id `lease:<instance>` (so it expires
 * like one), also summed in `lsum` so the balance shown leaves it out. setLease moves the
 * difference in and out of `held`. Returns the lease after. `known`: the lease as the caller
 * just read it (saves reading it again); an unchanged amount is not written again.
 */
export const LEASE = `
local function setLease(owner, hash, zset, id, amount, expiresAt, known)
  local before = known or tonumber(redis.call('HGET', hash, id) or '0')
  if amount <= 0 then
    redis.call('HDEL', hash, id)
    redis.call('ZREM', zset, id)
    amount = 0
  else
    if amount ~= before then redis.call('HSET', hash, id, string.format('%d', amount)) end
    if expiresAt then redis.call('ZADD', zset, expiresAt, id) end
  end
  if amount ~= before then
    redis.call('HINCRBY', owner, 'held', amount - before)
    redis.call('HINCRBY', owner, 'lsum', amount - before)
  end
  return amount
end
`;

/** A store write (settlement batch, ledger entry) of this account is under way and its lease has not run out. */
export const BUSY = `
local function busy(key, now)
  local fields = redis.call('HGETALL', key)
  local underWay = false
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 2) == 'w:' then
      if tonumber(fields[i + 1]) > now then underWay = true
      else redis.call('HDEL', key, fields[i]) end
    end
  end
  return underWay
end
`;

/** The three keys of an account: counters hash, holds hash, expiry set. */
export const USER_KEYS = ['user', 'userHolds', 'userExpiry'] as const;
export const KEY_KEYS = ['key', 'keyHolds', 'keyExpiry'] as const;
