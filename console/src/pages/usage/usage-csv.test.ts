import { describe, expect, it } from 'vitest';
import type { Usage } from '../../api/answers';
import { usageToCsv } from './usage-csv';

const zero = { cached_tokens: 0, reasoning_tokens: 0 };
const usage: Usage = {
  start_date: '2026-11-22',
  end_date: '2026-11-23',
  currency: 'USD',
  totals: {
    requests: 3,
    prompt_tokens: 3,
    completion_tokens: 60,
    total_tokens: 63,
    cost: 0.0000915,
    cost_nanos: 91_500,
    ...zero,
  },
  daily: [
    {
      date: '2026-11-22',
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost: 0,
      cost_nanos: 0,
      ...zero,
    },
    {
      date: '2026-11-23',
      requests: 3,
      prompt_tokens: 3,
      completion_tokens: 60,
      total_tokens: 63,
      cost: 0.0000915,
      cost_nanos: 91_500,
      ...zero,
    },
  ],
  by_model: [
    {
      model: 'mock/chat',
      requests: 3,
      prompt_tokens: 3,
      completion_tokens: 60,
      total_tokens: 63,
      cost: 0.0000915,
      cost_nanos: 91_500,
      ...zero,
    },
  ],
  failures: [],
  by_key: [
    {
      key_id: 'key_1',
      name: 'prod, "main"',
      requests: 3,
      prompt_tokens: 3,
      completion_tokens: 60,
      total_tokens: 63,
      cost: 12.5,
      cost_nanos: 12_500_000_000,
      ...zero,
    },
  ],
};

describe('usageToCsv', () => {
  it('writes days, models, keys and a total, costs exact from nano-USD', () => {
    const lines = usageToCsv(usage).trimEnd().split('\r\n');
    expect(lines).toEqual([
      'section,name,requests,prompt_tokens,completion_tokens,total_tokens,cost_usd',
      'day,2026-11-22,0,0,0,0,0.000000000',
      'day,2026-11-23,3,3,60,63,0.000091500',
      'model,mock/chat,3,3,60,63,0.000091500',
      'key,"prod, ""main""",3,3,60,63,12.500000000',
      'total,2026-11-22..2026-11-23,3,3,60,63,0.000091500',
    ]);
  });
});

describe('usageToCsv, a key without a name', () => {
  it('names the row by the key id (the API answers name: null for a key that no longer has one)', () => {
    const unnamed = { ...usage, by_key: [{ ...usage.by_key[0], name: null }] };
    expect(usageToCsv(unnamed)).toContain('\r\nkey,key_1,3,3,60,63,12.500000000\r\n');
  });
});
