/**
 * Lua scripts that mark the hot counters' store writes (redis-store-writes.ts): a write under way
 * is a \`w:<write id>\` field on each account it touches, and every begin and end bumps the
 * account's \`ep\`, so a load from the store can tell whether a write ran meanwhile. The account
 * layout is described in redis-hot-scripts.ts, which installs these with the other hot scripts.
 */
import { defineScript } from './redis-script.js';

/**
 * Marks a store write of these accounts as under way, by its id, until its lease runs out
 * (leaseMs from now): ending a write twice, or one whose begin never ran, changes nothing, so a
 * writer that lost a reply can always end its write.
 */
export const BEGIN_WRITE = defineScript({
  name: 'hotBeginWrite',
  keys: [],
  keyList: 'accounts',
  args: { now: 'int', leaseMs: 'int', writeId: 'text' },
  body: `
local expiry = now + leaseMs
for _, account in ipairs(accounts) do
  redis.call('HSET', account, 'w:' .. writeId, expiry)
  redis.call('HINCRBY', account, 'ep', 1)
end
return 1
`,
  decode: (): void => undefined,
});

const END_WRITE = `
local function endWrite(key, id)
  redis.call('HDEL', key, 'w:' .. id)
  redis.call('HINCRBY', key, 'ep', 1)
end
`;

/** Ends a write whose end got no answer (or whose begin may have run). */
export const END_WRITES = defineScript({
  name: 'hotEndWrites',
  keys: [],
  keyList: 'accounts',
  args: { writeId: 'text' },
  prelude: END_WRITE,
  body: `
for _, account in ipairs(accounts) do endWrite(account, writeId) end
return 1
`,
  decode: (): void => undefined,
});

/**
 * After a settlement batch: acknowledges the stream entries (only the first acknowledgement of an
 * entry moves the pending figures, so an entry written twice is counted once) and ends the write
 * of every account of the batch. Each entry names its user and key account by their place in
 * `accounts` (1-based; 0 none).
 */
export const ACK_SETTLEMENTS = defineScript({
  name: 'hotAckSettlements',
  keys: ['stream'],
  keyList: 'accounts',
  args: { group: 'text', writeId: 'text' },
  argList: {
    name: 'entries',
    fields: { id: 'text', userAccount: 'int', charge: 'int', keyAccount: 'int', keySpend: 'int', month: 'text' },
  },
  prelude: END_WRITE,
  // One XDEL for the batch and one HINCRBY per account and field (the batch's sum), not four
  // commands per entry: the figures end the same, and only newly acknowledged entries count.
  body: `
local acked = {}
local moves = {}
local order = {}
local function move(account, field, amount)
  local fields = moves[account]
  if not fields then
    fields = {}
    moves[account] = fields
    table.insert(order, account)
  end
  fields[field] = (fields[field] or 0) + amount
end
for _, entry in ipairs(entries) do
  if redis.call('XACK', stream, group, entry.id) == 1 then
    table.insert(acked, entry.id)
    if entry.userAccount > 0 then move(entry.userAccount, 'pend', entry.charge) end
    if entry.keyAccount > 0 then move(entry.keyAccount, 'p:' .. entry.month, entry.keySpend) end
  end
end
for i = 1, #acked, 100 do redis.call('XDEL', stream, unpack(acked, i, math.min(i + 99, #acked))) end
for _, place in ipairs(order) do
  local account = accounts[place]
  for field, amount in pairs(moves[place]) do
    if amount ~= 0 then
      local after = redis.call('HINCRBY', account, field, -amount)
      if after == 0 and field ~= 'pend' then redis.call('HDEL', account, field) end
    end
  end
end
for _, account in ipairs(accounts) do endWrite(account, writeId) end
return 1
`,
  decode: (): void => undefined,
});

/** After a ledger entry outside settlement: each user's balance moves by its amount; the write ends. */
export const END_LEDGER_WRITE = defineScript({
  name: 'hotEndLedgerWrite',
  keys: [],
  keyList: 'accounts',
  args: { writeId: 'text' },
  argList: { name: 'moves', fields: { amount: 'int' } },
  prelude: END_WRITE,
  body: `
for i, account in ipairs(accounts) do
  local amount = moves[i].amount
  local bal = redis.call('HGET', account, 'bal')
  if bal and amount ~= 0 then
    local balance = math.max(0, tonumber(bal) + amount)
    redis.call('HSET', account, 'bal', string.format('%d', balance))
  end
  endWrite(account, writeId)
end
return 1
`,
  decode: (): void => undefined,
});
