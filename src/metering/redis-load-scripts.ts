/**
 * The hot counters' scripts that read and load an account from the store's figures (PEEK, then
 * LOAD_USER / LOAD_KEY, refused while a store write of it is under way), a user's balance, and the
 * data generation that tells a Redis which lost its data. Layout: redis-hot-scripts.ts.
 */
import { defineScript, replyList, replyNumber, replyText } from './redis-script.js';
import { BUSY, SWEEP, USER_KEYS } from './redis-script-parts.js';

/** Is the account loaded (its `loadedField` present), its write epoch, and is a store write of it under way. */
export const PEEK = defineScript({
  name: 'hotPeek',
  keys: ['account'],
  args: { now: 'int', loadedField: 'text' },
  prelude: `${SWEEP}${BUSY}`,
  body: `
local loaded = redis.call('HEXISTS', account, loadedField)
local b = 0
if busy(account, now) then b = 1 end
return { loaded, redis.call('HGET', account, 'ep') or '0', b }
`,
  decode(reply): { loaded: boolean; epoch: string; busy: boolean } {
    const [loaded, epoch, busy] = replyList(reply, 'hotPeek');
    return { loaded: replyNumber(loaded) === 1, epoch: replyText(epoch), busy: replyNumber(busy) === 1 };
  },
});

export interface LoadReply {
  /** false: a store write began or ended since the epoch was read; read again and retry. */
  loaded: boolean;
  /** The figure it replaced (null: there was none). */
  previous: number | null;
}

function decodeLoad(reply: unknown, what: string): LoadReply {
  const [loaded, previous] = replyList(reply, what);
  const text = replyText(previous);
  return { loaded: replyNumber(loaded) === 1, previous: text === '' ? null : Number(text) };
}

/**
 * Loads (or, with force, replaces) a user's balance: the ledger's balance less the charges
 * settled and not yet written. Refused when a store write began or ended since the epoch was
 * read, so the ledger figure and the pending figure always describe the same moment.
 */
export const LOAD_USER = defineScript({
  name: 'hotLoadUser',
  keys: ['user', 'loadedSet'],
  args: { epoch: 'text', ledgerBalance: 'int', now: 'int', member: 'text', force: 'flag' },
  prelude: `${SWEEP}${BUSY}`,
  body: `
local previous = redis.call('HGET', user, 'bal') or ''
if previous ~= '' and not force then return { 1, previous } end
if (redis.call('HGET', user, 'ep') or '0') ~= epoch or busy(user, now) then return { 0, previous } end
local balance = math.max(0, ledgerBalance - num(user, 'pend'))
redis.call('HSET', user, 'bal', string.format('%d', balance))
redis.call('SADD', loadedSet, member)
return { 1, previous }
`,
  decode: (reply): LoadReply => decodeLoad(reply, 'hotLoadUser'),
});

/**
 * The same for a key's spend: the store's figures (month '' none) plus spend settled and not yet
 * written, month by month. `previous` is the lifetime total it replaced.
 */
export const LOAD_KEY = defineScript({
  name: 'hotLoadKey',
  keys: ['key', 'loadedSet'],
  args: { epoch: 'text', month: 'text', monthSpend: 'int', total: 'int', now: 'int', member: 'text', force: 'flag' },
  prelude: `${SWEEP}${BUSY}`,
  body: `
local previous = redis.call('HGET', key, 'tot') or ''
if previous ~= '' and not force then return { 1, previous } end
if (redis.call('HGET', key, 'ep') or '0') ~= epoch or busy(key, now) then return { 0, previous } end
local mo = month
local m = monthSpend
local fields = redis.call('HGETALL', key)
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
redis.call('HSET', key, 'mo', mo, 'm', string.format('%d', m), 'tot', string.format('%d', total))
redis.call('SADD', loadedSet, member)
return { 1, previous }
`,
  decode: (reply): LoadReply => decodeLoad(reply, 'hotLoadKey'),
});

/**
 * A user's balance (null: not loaded) and what requests hold (the instances' outage leases left
 * out: they are not spent, only set aside).
 */
export const BALANCE = defineScript({
  name: 'hotBalance',
  keys: USER_KEYS,
  args: { now: 'int' },
  prelude: SWEEP,
  body: `
sweep(user, userHolds, userExpiry, now)
return { redis.call('HGET', user, 'bal') or '', string.format('%d', num(user, 'held') - num(user, 'lsum')) }
`,
  decode(reply): { balance: number | null; held: number } {
    const [balance, held] = replyList(reply, 'hotBalance');
    const text = replyText(balance);
    return { balance: text === '' ? null : Number(text), held: Number(replyText(held)) };
  },
});

/**
 * The generation of this Redis's data: a random id set once (`candidate`); a Redis that
 * restarted without its data has none (or, once an instance noticed, another one). Also the
 * oldest entry of the settlement stream: every entry before it was written to the store and
 * deleted. fenceUntil: an instance that found the data lost refuses holds until then.
 * fenceIfNew: the fence of a generation this call creates. An instance that knew an earlier
 * generation passes it, so the new one is fenced from its first moment: otherwise holds (and the
 * loads they trigger) got in between the instance's two calls, before the lost records were back.
 */
export const GENERATION = defineScript({
  name: 'hotGeneration',
  keys: ['generation', 'stream'],
  args: { candidate: 'text', fenceUntil: 'int?', fenceIfNew: 'int?' },
  body: `
if redis.call('HSETNX', generation, 'id', candidate) == 1 then redis.call('HSET', generation, 'fence', fenceIfNew or '0') end
if fenceUntil then redis.call('HSET', generation, 'fence', fenceUntil) end
local first = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)
local oldest = ''
if first[1] then oldest = first[1][1] end
return { redis.call('HGET', generation, 'id'), oldest }
`,
  decode(reply): { generation: string; oldest: string } {
    const [generation, oldest] = replyList(reply, 'hotGeneration');
    return { generation: replyText(generation), oldest: replyText(oldest) };
  },
});
