/**
 * Lua scripts of the Redis hot counters (redis-hot-counters.ts): each runs atomically in Redis,
 * so every instance sees one balance, one key spend and one set of holds. Each script declares
 * its KEYS and ARGV by name (redis-script.ts binds them to Lua locals and lays calls out in the
 * same order) and decodes its reply into named fields. Layout per account (`u:<user id>` or
 * `k:<key id>`): a hash of counters, a hash of open holds (id → amount) and a sorted set of their
 * expiry times.
 *
 * User hash: bal (balance, absent until loaded), lsum (the part of held that is instances' outage leases), pend (charges settled and not yet in the store),
 * held (sum of open holds), ep (bumped by every store write's begin and end), w:<write id> (a
 * store write under way → when its lease runs out). Key hash: tot (lifetime spend), mo / m (month
 * and its spend), p:<YYYY-MM> (spend settled and not yet in the store), held, ep, w:<write id>.
 * Money is integer nano-USD; Lua numbers are doubles, exact up to 2^53 (about $9 million).
 */
import { defineScript, replyList, replyNumber, replyText } from './redis-script.js';
import { DIGITS, KEY_KEYS, LEASE, SWEEP, USER_KEYS } from './redis-script-parts.js';
import { BALANCE, GENERATION, LOAD_KEY, LOAD_USER, PEEK } from './redis-load-scripts.js';
import { BatchScript } from './redis-script-batch.js';
import { ACK_SETTLEMENTS, BEGIN_WRITE, END_LEDGER_WRITE, END_WRITES } from './redis-write-scripts.js';

/** How an admission ended. */
type AdmitOutcome =
  | 'admitted'
  | 'insufficient_credits'
  | 'quota_exceeded'
  | 'credit_limit_exceeded'
  | 'rate_limited'
  /** Short of credit unless it takes from the instance's lease: ask again with mayConvert. */
  | 'lease_could_cover'
  /** The user's counters must be loaded from the store first (then ask again). */
  | 'load_user'
  | 'load_key'
  /** Redis has no data generation or is fenced after a data loss: holds wait. */
  | 'data_lost';

export interface AdmitReply {
  outcome: AdmitOutcome;
  /** Which window refused (rate_limited). */
  refusedBy: 'requests' | 'tokens' | null;
  retryAfterMs: number;
  /** -1: the key has no rpm / tpm window. */
  rpmRemaining: number;
  rpmResetMs: number;
  tpmRemaining: number;
  tpmResetMs: number;
  /** The instance's lease after this step (-1: not touched) and the balance left free. */
  leaseAfter: number;
  freeAfter: number;
  /** Each window's stored theoretical arrival time after this step (-1: the key has no such window). */
  rpmTat: number;
  tpmTat: number;
}

/**
 * One admission: rate windows, key quota and lifetime limit, available balance, then the hold.
 * `generation` is a hash: id, and fence (the time until which holds are refused after a data
 * loss). The lease: this instance's outage lease on the user is topped up to 1/leaseShare of
 * the free balance when below half of that (0: never) and never below leaseFloor (what the
 * instance already spent of it); mayConvert lets the hold take from it when the free balance is
 * short. guardGeneration refuses holds while Redis has no generation or is fenced.
 */
export const ADMIT = defineScript({
  name: 'hotAdmit',
  keys: ['rpmBucket', 'tpmBucket', ...USER_KEYS, ...KEY_KEYS, 'generation'],
  args: {
    now: 'int',
    tokens: 'int',
    rpmLimit: 'int',
    tpmLimit: 'int',
    holdId: 'text?',
    amount: 'int',
    // Only handed on to ZADD: kept as the caller's digits (no conversion either way).
    expiresAt: 'text',
    trackUser: 'flag',
    trackKey: 'flag',
    monthlyQuota: 'int?',
    lifetimeLimit: 'int?',
    month: 'text',
    leaseId: 'text?',
    leaseFloor: 'int',
    leaseShare: 'int',
    leaseExpiresAt: 'text',
    mayConvert: 'flag',
    guardGeneration: 'flag',
    // Window units this instance admitted locally and has not settled yet (local admission):
    // counted in the decision, not written (their settlements write them).
    rpmPending: 'int',
    tpmPending: 'int',
  },
  prelude: `${DIGITS}${SWEEP}${LEASE}`,
  // Issue 31: each account's counters are read once (HMGET) and followed in locals after that,
  // the windows are checked without building tables, and an unchanged lease is not written
  // again: about half the commands of the version before, the same decisions and writes.
  body: `
local holding = holdId ~= nil
local countUser = holding and trackUser
local countKey = holding and trackKey
local refusedBy, retryAfterMs, rpmRemaining, rpmResetMs, tpmRemaining, tpmResetMs, leaseAfter, freeAfter = '', 0, -1, 0, -1, 0, -1, 0
local rpmTat, tpmTat = '-1', '-1'
local function answer(outcome)
  return { outcome, refusedBy, retryAfterMs, rpmRemaining, rpmResetMs, tpmRemaining, tpmResetMs, leaseAfter, freeAfter, rpmTat, tpmTat }
end
if holding and guardGeneration then
  -- Redis came back without its data: until every instance wrote the settlements the lost
  -- stream held, a balance loaded from the ledger would miss them.
  local fence = redis.call('HGET', generation, 'fence')
  if not fence or fence + 0 > now then return answer('data_lost') end
end
-- The user's balance and holds, and the key's lifetime and month spend and holds, as they are now.
local bal, held, keyFields
if countUser then
  local fields = redis.call('HMGET', user, 'bal', 'held')
  if not fields[1] then return answer('load_user') end
  -- Digits as numbers by arithmetic (one strtod; tonumber() takes two: see redis-script.ts).
  bal = fields[1] + 0
  held = (fields[2] or 0) + 0
end
if countKey then
  keyFields = redis.call('HMGET', key, 'tot', 'held', 'mo', 'm')
  if not keyFields[1] then return answer('load_key') end
end
local period = 60000
local allowed = true
-- One rate window (generic cell rate): its remaining and reset figures, and its next tat if it allows.
-- pending: units this instance admitted locally and has not settled (counted, not written).
local function window(stored, limit, cost, name, pending)
  local tat = now
  if stored then tat = stored + 0 end
  local interval = period / limit
  local start = math.max(tat, now) + pending * interval
  local nextTat = start + cost * interval
  local allowAt = nextTat - period
  local resetAt = nextTat
  if allowAt > now then
    if allowed then refusedBy = name end
    allowed = false
    retryAfterMs = math.max(retryAfterMs, math.ceil(allowAt - now))
    resetAt = start
    nextTat = nil
  else
    nextTat = nextTat - pending * interval
  end
  return math.max(0, math.floor((period - (resetAt - now)) / interval)), math.ceil(resetAt - now), nextTat
end
local rpmNext, tpmNext, rpmStored, tpmStored
-- Both windows (one slot) in one read when the key has both.
if rpmLimit > 0 and tpmLimit > 0 then
  local stored = redis.call('MGET', rpmBucket, tpmBucket)
  rpmStored, tpmStored = stored[1], stored[2]
elseif rpmLimit > 0 then
  rpmStored = redis.call('GET', rpmBucket)
elseif tpmLimit > 0 then
  tpmStored = redis.call('GET', tpmBucket)
end
if rpmLimit > 0 then rpmRemaining, rpmResetMs, rpmNext = window(rpmStored, rpmLimit, 1, 'requests', rpmPending) end
if tpmLimit > 0 then tpmRemaining, tpmResetMs, tpmNext = window(tpmStored, tpmLimit, tokens, 'tokens', tpmPending) end
if not allowed then return answer('rate_limited') end
if holding then
  if countKey then
    local keyHeld = (keyFields[2] or 0) - sweep(key, keyHolds, keyExpiry, now)
    local monthSpend = 0
    if keyFields[3] == month then monthSpend = (keyFields[4] or 0) + 0 end
    if monthlyQuota and monthlyQuota - monthSpend - keyHeld <= 0 then return answer('quota_exceeded') end
    if lifetimeLimit and lifetimeLimit - keyFields[1] - keyHeld <= 0 then return answer('credit_limit_exceeded') end
  end
  local lease = 0
  local convert = 0
  if countUser then
    held = held - sweep(user, userHolds, userExpiry, now)
    local free = bal - held
    if leaseId then lease = (redis.call('HGET', userHolds, leaseId) or 0) + 0 end
    if free < amount then
      -- Short: only this instance's own lease, beyond what it already spent of it, may make up the rest.
      leaseAfter = lease
      freeAfter = free
      if not leaseId or lease - leaseFloor < amount - free then return answer('insufficient_credits') end
      if not mayConvert then return answer('lease_could_cover') end
      convert = amount - free
    end
    held = held + amount
  end
  if countKey then
    redis.call('HSET', keyHolds, holdId, digits(amount))
    redis.call('ZADD', keyExpiry, expiresAt, holdId)
    redis.call('HINCRBY', key, 'held', digits(amount))
  end
  if countUser then
    -- The hold and the instance's lease after this step, written together: one HSET of the holds
    -- hash, one ZADD of the expiry set, one HINCRBY of held (issue 31, branch redis-bodies: the
    -- hold and the lease's refreshed expiry took a ZADD each). The lease: what the hold took from
    -- it (convert), then topped up to 1/leaseShare of the free balance when below half of that,
    -- never below leaseFloor; written (and its expiry refreshed) as setLease did.
    local holdFields = { holdId, digits(amount) }
    local expiries = { expiresAt, holdId }
    local leaseTo = lease
    if leaseId then
      leaseTo = math.max(0, lease - convert)
      local free = bal - (held + leaseTo - lease)
      local want = math.max(leaseTo, leaseFloor)
      if leaseShare > 0 and free > 0 then
        local target = math.floor(free / leaseShare)
        if leaseTo < target / 2 then want = math.max(want, target) end
      end
      leaseTo = want
      if leaseTo > 0 then
        if leaseTo ~= lease then
          holdFields[#holdFields + 1] = leaseId
          holdFields[#holdFields + 1] = digits(leaseTo)
        end
        expiries[#expiries + 1] = leaseExpiresAt
        expiries[#expiries + 1] = leaseId
      elseif lease > 0 then
        redis.call('HDEL', userHolds, leaseId)
        redis.call('ZREM', userExpiry, leaseId)
      end
    end
    redis.call('HSET', userHolds, unpack(holdFields))
    redis.call('ZADD', userExpiry, unpack(expiries))
    redis.call('HINCRBY', user, 'held', digits(amount + leaseTo - lease))
    if leaseTo ~= lease then redis.call('HINCRBY', user, 'lsum', digits(leaseTo - lease)) end
    held = held + leaseTo - lease
    if leaseId then
      leaseAfter = leaseTo
      freeAfter = bal - held
    end
  end
end
if rpmNext then
  rpmTat = string.format('%.3f', rpmNext)
  redis.call('SET', rpmBucket, rpmTat, 'PX', digits(math.ceil(rpmNext - now) + 1000))
end
if tpmNext then
  tpmTat = string.format('%.3f', tpmNext)
  redis.call('SET', tpmBucket, tpmTat, 'PX', digits(math.ceil(tpmNext - now) + 1000))
end
return answer('admitted')
`,
  decode(reply): AdmitReply {
    const [
      outcome,
      refusedBy,
      retryAfterMs,
      rpmRemaining,
      rpmResetMs,
      tpmRemaining,
      tpmResetMs,
      leaseAfter,
      freeAfter,
      rpmTat,
      tpmTat,
    ] = replyList(reply, 'hotAdmit');
    return {
      outcome: replyText(outcome) as AdmitOutcome,
      refusedBy: refusedBy === 'requests' || refusedBy === 'tokens' ? refusedBy : null,
      retryAfterMs: replyNumber(retryAfterMs),
      rpmRemaining: replyNumber(rpmRemaining),
      rpmResetMs: replyNumber(rpmResetMs),
      tpmRemaining: replyNumber(tpmRemaining),
      tpmResetMs: replyNumber(tpmResetMs),
      leaseAfter: replyNumber(leaseAfter),
      freeAfter: replyNumber(freeAfter),
      rpmTat: replyNumber(rpmTat),
      tpmTat: replyNumber(tpmTat),
    };
  },
});

/** Releases one hold of an account (absent: nothing moves). */
const RELEASE = `
local function release(owner, hash, zset, id)
  local amount = redis.call('HGET', hash, id)
  if amount then
    redis.call('HDEL', hash, id)
    redis.call('ZREM', zset, id)
    redis.call('HINCRBY', owner, 'held', digits(-amount))
  end
end
`;

/**
 * One settlement: the hold becomes the charge in the counters and the durable record is appended
 * to the settlement stream, in the same atomic step. Without a record only the hold (and the
 * other figures given) moves. leaseId/leaseDebit: a request admitted from the lease while Redis
 * was away; its charge leaves the lease. holdOnUser / holdOnKey: the accounts the admission put
 * the hold on (its trackUser / trackKey; the others' keys were placeholders): only those are
 * looked at to release it (issue 31, branch redis-bodies: the bench's key has no quota, and its
 * settlement read the key's holds for a hold that was never there).
 */
export const SETTLE = defineScript({
  name: 'hotSettle',
  keys: ['rpmBucket', 'tpmBucket', ...USER_KEYS, ...KEY_KEYS, 'stream'],
  args: {
    now: 'int',
    holdId: 'text?',
    charge: 'int',
    keySpend: 'int',
    month: 'text',
    tpmDelta: 'int',
    tpmLimit: 'int',
    record: 'text?',
    hasUser: 'flag',
    hasKey: 'flag',
    leaseId: 'text?',
    leaseDebit: 'int',
    holdOnUser: 'flag',
    holdOnKey: 'flag',
    // Admitted locally (from the lease, Redis healthy): the rpm window's unit, charged as of the
    // admission's time (windowAt); tpmDelta then carries the request's whole tokens.
    rpmCharge: 'int',
    rpmLimit: 'int',
    windowAt: 'int',
  },
  prelude: `${DIGITS}${SWEEP}${LEASE}${RELEASE}`,
  body: `
if holdId then
  if hasUser and holdOnUser then release(user, userHolds, userExpiry, holdId) end
  if hasKey and holdOnKey then release(key, keyHolds, keyExpiry, holdId) end
end
if hasUser and charge > 0 then
  local bal = redis.call('HGET', user, 'bal')
  if bal then redis.call('HINCRBY', user, 'bal', digits(-math.min(charge, math.max(0, bal + 0)))) end
  redis.call('HINCRBY', user, 'pend', digits(charge))
end
if hasKey and keySpend > 0 then
  local spend = digits(keySpend)
  if redis.call('HEXISTS', key, 'tot') == 1 then
    local mo = redis.call('HGET', key, 'mo')
    if mo == month then
      redis.call('HINCRBY', key, 'm', spend)
    elseif (not mo) or mo < month then
      redis.call('HSET', key, 'mo', month, 'm', spend)
    end
    redis.call('HINCRBY', key, 'tot', spend)
  end
  redis.call('HINCRBY', key, 'p:' .. month, spend)
end
local rpmTat, tpmTat = '-1', '-1'
-- One rate window moved by cost units from \`from\` (the same cell rate as the admission's): the
-- stored tat after it, or '0' when the window is empty again (its key deleted).
local function advance(bucket, from, cost, limit)
  local stored = redis.call('GET', bucket)
  local tat = from
  if stored then tat = stored + 0 end
  local nextTat = math.max(tat, from) + cost * 60000 / limit
  if nextTat <= now then
    redis.call('DEL', bucket)
    return '0'
  end
  local text = string.format('%.3f', nextTat)
  redis.call('SET', bucket, text, 'PX', digits(math.ceil(nextTat - now) + 1000))
  return text
end
if tpmLimit > 0 and tpmDelta ~= 0 then tpmTat = advance(tpmBucket, now, tpmDelta, tpmLimit) end
if rpmLimit > 0 and rpmCharge > 0 then rpmTat = advance(rpmBucket, windowAt, rpmCharge, rpmLimit) end
local leaseAfter = -1
if hasUser and leaseId then
  local lease = tonumber(redis.call('HGET', userHolds, leaseId) or '0')
  leaseAfter = setLease(user, userHolds, userExpiry, leaseId, lease - math.min(lease, leaseDebit), nil, lease)
end
if not record then return { '', leaseAfter, rpmTat, tpmTat } end
return { redis.call('XADD', stream, '*', 'r', record), leaseAfter, rpmTat, tpmTat }
`,
  decode(reply): { entryId: string; leaseAfter: number; rpmTat: number; tpmTat: number } {
    const [entryId, leaseAfter, rpmTat, tpmTat] = replyList(reply, 'hotSettle');
    return {
      entryId: replyText(entryId),
      leaseAfter: replyNumber(leaseAfter),
      rpmTat: replyNumber(rpmTat),
      tpmTat: replyNumber(tpmTat),
    };
  },
});

/**
 * Shrinks an instance's lease by an amount (the lease returned when idle, or a charge written to
 * the store while Redis was away). Replies with the lease after.
 */
export const SHRINK_LEASE = defineScript({
  name: 'hotShrinkLease',
  keys: USER_KEYS,
  args: { leaseId: 'text', amount: 'int' },
  prelude: LEASE,
  body: `
local lease = tonumber(redis.call('HGET', userHolds, leaseId) or '0')
return setLease(user, userHolds, userExpiry, leaseId, lease - math.min(lease, amount), nil)
`,
  decode: (reply): number => replyNumber(reply),
});

/**
 * Admissions, settlements and lease shrinks gathered in one turn of the event loop, run in one script call
 * (redis-script-batch.ts, issue 31): each runs the very body of ADMIT or SETTLE, in order.
 */
export const HOT_BATCH = new BatchScript('hotBatch', `${DIGITS}${SWEEP}${LEASE}${RELEASE}`, [
  ADMIT,
  SETTLE,
  SHRINK_LEASE,
]);

/** Every script of the hot counters (installed on each connection that runs them). */
export const HOT_SCRIPTS = [
  ADMIT,
  SETTLE,
  SHRINK_LEASE,
  BEGIN_WRITE,
  ACK_SETTLEMENTS,
  END_LEDGER_WRITE,
  END_WRITES,
  PEEK,
  LOAD_USER,
  LOAD_KEY,
  BALANCE,
  GENERATION,
] as const;
