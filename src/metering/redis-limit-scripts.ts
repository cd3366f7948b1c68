/**
 * Lua scripts run atomically by Redis, so every instance shares one limit. They compute what
 * rate-limit-window.ts (decideLimit) and limit-backend.ts (decideHold) compute in memory.
 */

/** KEYS: rpm bucket, tpm bucket. ARGV: now, tokens, rpm limit (0 = none), tpm limit (0 = none). */
export const CHECK_RATE_SCRIPT = `
local now = tonumber(ARGV[1])
local tokens = tonumber(ARGV[2])
local limits = { tonumber(ARGV[3]), tonumber(ARGV[4]) }
local costs = { 1, tokens }
local period = 60000
local results = {}
local allowed = 1
local refused = 0
for i = 1, 2 do
  local limit = limits[i]
  if limit > 0 then
    local stored = redis.call('GET', KEYS[i])
    local tat = now
    if stored then tat = tonumber(stored) end
    local interval = period / limit
    local start = math.max(tat, now)
    local nextTat = start + costs[i] * interval
    local allowAt = nextTat - period
    if allowAt > now then
      if allowed == 1 then refused = i end
      allowed = 0
      results[i] = { start, allowAt - now, math.max(0, math.floor((period - (start - now)) / interval)), start - now }
    else
      results[i] = { nextTat, 0, math.max(0, math.floor((period - (nextTat - now)) / interval)), nextTat - now }
    end
  end
end
local reply = { allowed, refused, 0, -1, 0, -1, 0 }
for i = 1, 2 do
  local r = results[i]
  if r then
    if allowed == 1 then
      redis.call('SET', KEYS[i], string.format('%.3f', r[1]), 'PX', math.ceil(r[1] - now) + 1000)
    end
    reply[3] = math.max(reply[3], math.ceil(r[2]))
    reply[2 + 2 * i] = r[3]
    reply[3 + 2 * i] = math.ceil(r[4])
  end
end
return reply
`;

/** KEYS: tpm bucket. ARGV: now, token delta (may be negative), tpm limit. */
export const ADJUST_TOKENS_SCRIPT = `
local now = tonumber(ARGV[1])
local stored = redis.call('GET', KEYS[1])
local tat = now
if stored then tat = tonumber(stored) end
local nextTat = math.max(tat, now) + tonumber(ARGV[2]) * 60000 / tonumber(ARGV[3])
if nextTat > now then
  redis.call('SET', KEYS[1], string.format('%.3f', nextTat), 'PX', math.ceil(nextTat - now) + 1000)
else
  redis.call('DEL', KEYS[1])
end
return 1
`;

/** Sums a hash of holds (field: hold id, value: "amount:expiresAt"), dropping expired ones. */
const SUM_HOLDS = `
local function sumHolds(key, now)
  local total = 0
  local entries = redis.call('HGETALL', key)
  for i = 1, #entries, 2 do
    local amount, expires = string.match(entries[i + 1], '^(%d+):(%d+)$')
    if tonumber(expires) <= now then
      redis.call('HDEL', key, entries[i])
    else
      total = total + tonumber(amount)
    end
  end
  return total
end
`;

/**
 * KEYS: user holds, key holds. ARGV: hold id, amount, now, expiresAt, user balance, key month
 * remaining, key lifetime remaining ('' = no such check), track user (1/0), track key (1/0).
 * Returns 0 held, 1 insufficient credits, 2 quota exceeded, 3 credit limit exceeded.
 */
export const RESERVE_HOLD_SCRIPT = `${SUM_HOLDS}
local id = ARGV[1]
local amount = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local expiresAt = tonumber(ARGV[4])
local trackUser = ARGV[8] == '1'
local trackKey = ARGV[9] == '1'
local keyHeld = 0
if trackKey then keyHeld = sumHolds(KEYS[2], now) end
if ARGV[6] ~= '' and tonumber(ARGV[6]) - keyHeld <= 0 then return 2 end
if ARGV[7] ~= '' and tonumber(ARGV[7]) - keyHeld <= 0 then return 3 end
local userHeld = 0
if trackUser then userHeld = sumHolds(KEYS[1], now) end
if ARGV[5] ~= '' and tonumber(ARGV[5]) - userHeld < amount then return 1 end
local value = string.format('%d:%d', amount, expiresAt)
local ttl = expiresAt - now + 1000
for i, track in ipairs({ trackUser, trackKey }) do
  if track then
    redis.call('HSET', KEYS[i], id, value)
    if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
return 0
`;

/** KEYS: user holds. ARGV: now. */
export const SUM_HOLDS_SCRIPT = `${SUM_HOLDS}
return sumHolds(KEYS[1], tonumber(ARGV[1]))
`;
