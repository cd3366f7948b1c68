/**
 * Lua scripts of the Redis hot counters (redis-hot-counters.ts): each runs atomically in Redis,
 * so every instance sees one balance, one key spend and one set of holds. Layout per account
 * (`u:<user id>` or `k:<key id>` after the prefix `hot:`): a hash of counters, a hash of open
 * holds (id → amount) and a sorted set of their expiry times.
 *
 * User hash: bal (balance, absent until loaded), lsum (the part of held that is instances' outage leases), pend (charges settled and not yet in the store),
 * held (sum of open holds), ep (bumped by every store write's begin and end), w:<write id> (a
 * store write under way → when its lease runs out). Key hash: tot (lifetime spend), mo / m (month
 * and its spend), p:<YYYY-MM> (spend settled and not yet in the store), held, ep, w:<write id>.
 * Money is integer nano-USD; Lua numbers are doubles, exact up to 2^53 (about $9 million).
 */

/** Drops expired holds of one account (a request whose instance died never settles them). */
const SWEEP = `
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
end
local function num(key, field)
  return tonumber(redis.call('HGET', key, field) or '0')
end
`;

/**
 * An instance's outage lease on a user: a hold with the id `lease:<instance>` (so it expires
 * like one), also summed in `lsum` so the balance shown leaves it out. setLease moves the
 * difference in and out of `held`. Reply value: the lease after.
 */
const LEASE = `
local function setLease(owner, hash, zset, id, amount, expiresAt)
  local before = tonumber(redis.call('HGET', hash, id) or '0')
  if amount <= 0 then
    redis.call('HDEL', hash, id)
    redis.call('ZREM', zset, id)
    amount = 0
  else
    redis.call('HSET', hash, id, string.format('%d', amount))
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
const BUSY = `
local function busy(key, now)
  local fields = redis.call('HGETALL', key)
  local under_way = false
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 2) == 'w:' then
      if tonumber(fields[i + 1]) > now then under_way = true
      else redis.call('HDEL', key, fields[i]) end
    end
  end
  return under_way
end
`;
/**
 * One admission: rate windows, key quota and lifetime limit, available balance, then the hold.
 * KEYS: rpm bucket, tpm bucket, user hash, user holds, user expiry, key hash, key holds, key expiry,
 * generation (a hash: id, and fence, the time until which holds are refused after a data loss).
 * ARGV: now, tokens, rpm limit (0 none), tpm limit (0 none), hold id ('' none), amount, expiresAt,
 * track user (1/0), track key (1/0), monthly quota ('' none), lifetime limit ('' none), month,
 * lease id ('' none), lease floor (what the instance already spent of it), lease share (the lease
 * is topped up to 1/share of the free balance when below half of that; 0 none), lease expiry,
 * may convert (1: the hold may take from the instance's own lease when the free balance is short),
 * guard generation (1: refuse holds while Redis has no generation or is fenced: code -3).
 * Reply: {code, refused by (1 rpm, 2 tpm), retry after ms, rpm remaining, rpm reset ms, tpm
 * remaining, tpm reset ms, lease after (-1 untouched), free balance after}; code 0 admitted, 1
 * insufficient credits, 2 quota exceeded, 3 credit limit exceeded, 4 rate limited, 5 short of
 * credit unless it takes from the instance's lease (ask again with may convert), -1 the user's
 * counters must be loaded, -2 the key's.
 */
export const ADMIT_SCRIPT = `${SWEEP}${LEASE}
local now = tonumber(ARGV[1])
local holding = ARGV[5] ~= ''
local trackUser = holding and ARGV[8] == '1'
local trackKey = holding and ARGV[9] == '1'
if holding and ARGV[18] == '1' then
  -- Redis came back without its data: until every instance wrote the settlements the lost
  -- stream held, a balance loaded from the ledger would miss them.
  local fence = redis.call('HGET', KEYS[9], 'fence')
  if not fence or tonumber(fence) > now then return { -3 } end
end
if trackUser and redis.call('HEXISTS', KEYS[3], 'bal') == 0 then return { -1 } end
if trackKey and redis.call('HEXISTS', KEYS[6], 'tot') == 0 then return { -2 } end
local limits = { tonumber(ARGV[3]), tonumber(ARGV[4]) }
local costs = { 1, tonumber(ARGV[2]) }
local period = 60000
local results = {}
local allowed = true
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
      if allowed then refused = i end
      allowed = false
      results[i] = { start, allowAt - now, math.max(0, math.floor((period - (start - now)) / interval)), start - now }
    else
      results[i] = { nextTat, 0, math.max(0, math.floor((period - (nextTat - now)) / interval)), nextTat - now }
    end
  end
end
local reply = { 0, refused, 0, -1, 0, -1, 0, -1, 0 }
for i = 1, 2 do
  local r = results[i]
  if r then
    reply[3] = math.max(reply[3], math.ceil(r[2]))
    reply[2 + 2 * i] = r[3]
    reply[3 + 2 * i] = math.ceil(r[4])
  end
end
if not allowed then
  reply[1] = 4
  return reply
end
if holding then
  if trackKey then
    sweep(KEYS[6], KEYS[7], KEYS[8], now)
    local keyHeld = num(KEYS[6], 'held')
    local month = 0
    if redis.call('HGET', KEYS[6], 'mo') == ARGV[12] then month = num(KEYS[6], 'm') end
    if ARGV[10] ~= '' and tonumber(ARGV[10]) - month - keyHeld <= 0 then
      reply[1] = 2
      return reply
    end
    if ARGV[11] ~= '' and tonumber(ARGV[11]) - num(KEYS[6], 'tot') - keyHeld <= 0 then
      reply[1] = 3
      return reply
    end
  end
  local leaseId = ARGV[13]
  local lease = 0
  local convert = 0
  if trackUser then
    sweep(KEYS[3], KEYS[4], KEYS[5], now)
    local amount = tonumber(ARGV[6])
    local free = num(KEYS[3], 'bal') - num(KEYS[3], 'held')
    if leaseId ~= '' then lease = tonumber(redis.call('HGET', KEYS[4], leaseId) or '0') end
    if free < amount then
      -- Short: only this instance's own lease, beyond what it already spent of it, may make up the rest.
      reply[8] = lease
      reply[9] = free
      if leaseId == '' or lease - tonumber(ARGV[14]) < amount - free then
        reply[1] = 1
        return reply
      end
      if ARGV[17] ~= '1' then
        reply[1] = 5
        return reply
      end
      convert = amount - free
    end
  end
  local owners = {}
  if trackUser then table.insert(owners, 3) end
  if trackKey then table.insert(owners, 6) end
  for _, i in ipairs(owners) do
    redis.call('HSET', KEYS[i + 1], ARGV[5], ARGV[6])
    redis.call('ZADD', KEYS[i + 2], ARGV[7], ARGV[5])
    redis.call('HINCRBY', KEYS[i], 'held', ARGV[6])
  end
  if trackUser and leaseId ~= '' then
    if convert > 0 then lease = setLease(KEYS[3], KEYS[4], KEYS[5], leaseId, lease - convert, nil) end
    local free = num(KEYS[3], 'bal') - num(KEYS[3], 'held')
    local share = tonumber(ARGV[15])
    local want = math.max(lease, tonumber(ARGV[14]))
    if share > 0 and free > 0 then
      local target = math.floor(free / share)
      if lease < target / 2 then want = math.max(want, target) end
    end
    if want > 0 or lease > 0 then lease = setLease(KEYS[3], KEYS[4], KEYS[5], leaseId, want, tonumber(ARGV[16])) end
    reply[8] = lease
    reply[9] = num(KEYS[3], 'bal') - num(KEYS[3], 'held')
  end
end
for i = 1, 2 do
  local r = results[i]
  if r then redis.call('SET', KEYS[i], string.format('%.3f', r[1]), 'PX', math.ceil(r[1] - now) + 1000) end
end
return reply
`;

/**
 * One settlement: the hold becomes the charge in the counters and the durable record is appended
 * to the settlement stream, in the same atomic step.
 * KEYS: tpm bucket, user hash, user holds, user expiry, key hash, key holds, key expiry, stream.
 * ARGV: now, hold id ('' none), charge, key spend, month, tpm delta, tpm limit (0 none),
 * record ('' none: only release), has user (1/0), has key (1/0), lease id ('' none), lease debit
 * (a request admitted from the lease while Redis was away: its charge leaves the lease).
 * Reply: {the stream entry id ('' without a record), the lease after (-1 none)}.
 */
export const SETTLE_SCRIPT = `${SWEEP}${LEASE}
local function release(owner, hash, zset, id)
  local amount = redis.call('HGET', hash, id)
  if amount then
    redis.call('HDEL', hash, id)
    redis.call('ZREM', zset, id)
    redis.call('HINCRBY', owner, 'held', -tonumber(amount))
  end
end
local now = tonumber(ARGV[1])
local hasUser = ARGV[9] == '1'
local hasKey = ARGV[10] == '1'
if ARGV[2] ~= '' then
  if hasUser then release(KEYS[2], KEYS[3], KEYS[4], ARGV[2]) end
  if hasKey then release(KEYS[5], KEYS[6], KEYS[7], ARGV[2]) end
end
local charge = tonumber(ARGV[3])
if hasUser and charge > 0 then
  local bal = redis.call('HGET', KEYS[2], 'bal')
  if bal then redis.call('HINCRBY', KEYS[2], 'bal', -math.min(charge, math.max(0, tonumber(bal)))) end
  redis.call('HINCRBY', KEYS[2], 'pend', charge)
end
local spend = tonumber(ARGV[4])
if hasKey and spend > 0 then
  if redis.call('HEXISTS', KEYS[5], 'tot') == 1 then
    local mo = redis.call('HGET', KEYS[5], 'mo')
    if mo == ARGV[5] then
      redis.call('HINCRBY', KEYS[5], 'm', spend)
    elseif (not mo) or mo < ARGV[5] then
      redis.call('HSET', KEYS[5], 'mo', ARGV[5], 'm', ARGV[4])
    end
    redis.call('HINCRBY', KEYS[5], 'tot', spend)
  end
  redis.call('HINCRBY', KEYS[5], 'p:' .. ARGV[5], spend)
end
local limit = tonumber(ARGV[7])
local delta = tonumber(ARGV[6])
if limit > 0 and delta ~= 0 then
  local stored = redis.call('GET', KEYS[1])
  local tat = now
  if stored then tat = tonumber(stored) end
  local nextTat = math.max(tat, now) + delta * 60000 / limit
  if nextTat > now then
    redis.call('SET', KEYS[1], string.format('%.3f', nextTat), 'PX', math.ceil(nextTat - now) + 1000)
  else
    redis.call('DEL', KEYS[1])
  end
end
local leaseAfter = -1
if hasUser and ARGV[11] and ARGV[11] ~= '' then
  local lease = tonumber(redis.call('HGET', KEYS[3], ARGV[11]) or '0')
  leaseAfter = setLease(KEYS[2], KEYS[3], KEYS[4], ARGV[11], lease - math.min(lease, tonumber(ARGV[12])), nil)
end
if ARGV[8] == '' then return { '', leaseAfter } end
return { redis.call('XADD', KEYS[8], '*', 'r', ARGV[8]), leaseAfter }
`;

/**
 * Shrinks an instance's lease by an amount (the lease returned when idle, or a charge written to
 * the store while Redis was away). KEYS: user hash, holds, expiry. ARGV: lease id, amount.
 * Reply: the lease after.
 */
export const SHRINK_LEASE_SCRIPT = `${LEASE}
local lease = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
return setLease(KEYS[1], KEYS[2], KEYS[3], ARGV[1], lease - math.min(lease, tonumber(ARGV[2])), nil)
`;

/**
 * KEYS: account hashes. ARGV: now, lease ms, write id. Marks a store write of these accounts as
 * under way, by its id: ending a write twice, or one whose begin never ran, changes nothing, so a
 * writer that lost a reply can always end its write (before, a lost reply kept every load of the
 * account waiting for the whole lease).
 */
export const BEGIN_WRITE_SCRIPT = `
local expiry = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  redis.call('HSET', key, 'w:' .. ARGV[3], expiry)
  redis.call('HINCRBY', key, 'ep', 1)
end
return 1
`;

const END_WRITE = `
local function endWrite(key, id)
  redis.call('HDEL', key, 'w:' .. id)
  redis.call('HINCRBY', key, 'ep', 1)
end
`;

/** Ends a write whose end got no answer (or whose begin may have run). KEYS: account hashes. ARGV: write id. */
export const END_WRITES_SCRIPT = `${END_WRITE}
for _, key in ipairs(KEYS) do endWrite(key, ARGV[1]) end
return 1
`;

/**
 * After a settlement batch: acknowledges the stream entries (only the first acknowledgement of an
 * entry moves the pending figures, so an entry written twice is counted once) and ends the write.
 * KEYS: stream, then the account hashes of the batch. ARGV: group, entry count, write id, then
 * per entry six values: entry id, user hash index in KEYS (0 none), charge, key hash index (0 none), key
 * spend, month.
 */
export const ACK_SETTLEMENTS_SCRIPT = `${END_WRITE}
local count = tonumber(ARGV[2])
for e = 0, count - 1 do
  local base = 4 + e * 6
  local id = ARGV[base]
  if redis.call('XACK', KEYS[1], ARGV[1], id) == 1 then
    redis.call('XDEL', KEYS[1], id)
    local u = tonumber(ARGV[base + 1])
    if u > 0 then redis.call('HINCRBY', KEYS[u], 'pend', -tonumber(ARGV[base + 2])) end
    local k = tonumber(ARGV[base + 3])
    if k > 0 then
      local field = 'p:' .. ARGV[base + 5]
      if redis.call('HINCRBY', KEYS[k], field, -tonumber(ARGV[base + 4])) == 0 then redis.call('HDEL', KEYS[k], field) end
    end
  end
end
for i = 2, #KEYS do endWrite(KEYS[i], ARGV[3]) end
return 1
`;

/** After a ledger entry outside settlement. KEYS: user hashes. ARGV: write id, the amount each moved. */
export const END_LEDGER_WRITE_SCRIPT = `${END_WRITE}
for i, key in ipairs(KEYS) do
  local amount = tonumber(ARGV[i + 1])
  local bal = redis.call('HGET', key, 'bal')
  if bal and amount ~= 0 then
    local balance = math.max(0, tonumber(bal) + amount)
    redis.call('HSET', key, 'bal', string.format('%d', balance))
  end
  endWrite(key, ARGV[1])
end
return 1
`;

/** KEYS: an account hash. ARGV: now, the loaded field. Reply: {loaded 1/0, epoch, busy 1/0}. */
export const PEEK_SCRIPT = `${SWEEP}${BUSY}
local now = tonumber(ARGV[1])
local loaded = redis.call('HEXISTS', KEYS[1], ARGV[2])
local b = 0
if busy(KEYS[1], now) then b = 1 end
return { loaded, redis.call('HGET', KEYS[1], 'ep') or '0', b }
`;

/**
 * Loads (or, with force, replaces) a user's balance: the ledger's balance less the charges
 * settled and not yet written. Refused (0) when a store write began or ended since the epoch was
 * read, so the ledger figure and the pending figure always describe the same moment.
 * KEYS: user hash, set of loaded accounts. ARGV: epoch, ledger balance, now, member, force (1/0).
 * Reply: {1 loaded / 0 retry, the balance it replaced ('' none)}.
 */
export const LOAD_USER_SCRIPT = `${SWEEP}${BUSY}
local previous = redis.call('HGET', KEYS[1], 'bal') or ''
if previous ~= '' and ARGV[5] ~= '1' then return { 1, previous } end
if (redis.call('HGET', KEYS[1], 'ep') or '0') ~= ARGV[1] or busy(KEYS[1], tonumber(ARGV[3])) then return { 0, previous } end
local balance = math.max(0, tonumber(ARGV[2]) - num(KEYS[1], 'pend'))
redis.call('HSET', KEYS[1], 'bal', string.format('%d', balance))
redis.call('SADD', KEYS[2], ARGV[4])
return { 1, previous }
`;

/**
 * The same for a key's spend: the store's figures plus spend settled and not yet written, month
 * by month. KEYS: key hash, set of loaded accounts. ARGV: epoch, month ('' none), month spend,
 * total, now, member, force. Reply: {1 / 0, the total it replaced ('' none)}.
 */
export const LOAD_KEY_SCRIPT = `${SWEEP}${BUSY}
local previous = redis.call('HGET', KEYS[1], 'tot') or ''
if previous ~= '' and ARGV[7] ~= '1' then return { 1, previous } end
if (redis.call('HGET', KEYS[1], 'ep') or '0') ~= ARGV[1] or busy(KEYS[1], tonumber(ARGV[5])) then return { 0, previous } end
local mo = ARGV[2]
local m = tonumber(ARGV[3])
local total = tonumber(ARGV[4])
local fields = redis.call('HGETALL', KEYS[1])
local pending = {}
for i = 1, #fields, 2 do
  if string.sub(fields[i], 1, 2) == 'p:' then table.insert(pending, { string.sub(fields[i], 3), tonumber(fields[i + 1]) }) end
end
table.sort(pending, function(a, b) return a[1] < b[1] end)
for _, entry in ipairs(pending) do
  if mo == entry[1] then
    m = m + entry[2]
  elseif mo == '' or mo < entry[1] then
    mo = entry[1]
    m = entry[2]
  end
  total = total + entry[2]
end
redis.call('HSET', KEYS[1], 'mo', mo, 'm', string.format('%d', m), 'tot', string.format('%d', total))
redis.call('SADD', KEYS[2], ARGV[6])
return { 1, previous }
`;

/**
 * KEYS: user hash, user holds, user expiry. ARGV: now. Reply: {balance ('' not loaded), held by
 * requests (the instances' outage leases left out: they are not spent, only set aside)}.
 */
export const BALANCE_SCRIPT = `${SWEEP}
sweep(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]))
return { redis.call('HGET', KEYS[1], 'bal') or '', string.format('%d', num(KEYS[1], 'held') - num(KEYS[1], 'lsum')) }
`;

/**
 * The generation of this Redis's data: a random id set once; a Redis that restarted without its
 * data has none (or, once an instance noticed, another one). Also the oldest entry of the
 * settlement stream: every entry before it was written to the store and deleted.
 * KEYS: generation hash, stream. ARGV: a new generation id (set only when there is none), a fence
 * time ('' none: an instance that found the data lost sets one, holds are refused until then).
 * Reply: {generation, oldest stream entry id ('' empty)}.
 */
export const GENERATION_SCRIPT = `
if redis.call('HSETNX', KEYS[1], 'id', ARGV[1]) == 1 then redis.call('HSET', KEYS[1], 'fence', '0') end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'fence', ARGV[2]) end
local first = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
local oldest = ''
if first[1] then oldest = first[1][1] end
return { redis.call('HGET', KEYS[1], 'id'), oldest }
`;
