import type { TestGateway } from './test-gateway.js';
import type { UsageEventsTable } from '../../src/metering/metering-schema.js';
import type { Settlement } from '../../src/metering/hot-counters.js';

/** The usage events of the test user, after the metering writer flushed (polls until `count` are there). */
export async function usageEvents(gateway: TestGateway, count: number): Promise<Array<Record<string, any>>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    await gateway.gateway.metering!.flush();
    const events = await gateway.testStore.store.db
      .selectFrom('usage_events')
      .selectAll()
      .where('user_id', '=', gateway.userId)
      .orderBy('created_at')
      .execute();
    if (events.length >= count) return events as Array<Record<string, any>>;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} usage events were written`);
}

/**
 * A usage_events row for tests that seed the table directly: a plain answered request (status 200,
 * one attempt, 1+1 tokens, no cost). Give `id` and `created_at`; the request id defaults to the id.
 */
export function usageEventRow(
  fields: Pick<UsageEventsTable, 'id' | 'created_at'> & Partial<UsageEventsTable>,
): UsageEventsTable {
  return {
    request_id: fields.id,
    user_id: null,
    key_id: null,
    requested_model: 'test/chat',
    model_id: 'test/chat',
    provider_id: 'mock',
    upstream_model: 'mock-model',
    prompt_tokens: 1,
    completion_tokens: 1,
    cached_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 2,
    tokens_estimated: 0,
    cost_nanos: 0,
    latency_ms: 1,
    time_to_first_token_ms: null,
    tokens_per_second: null,
    status: 200,
    error_code: null,
    streamed: 0,
    client_aborted: 0,
    attempt_count: 1,
    attempts: '[]',
    ...fields,
  };
}

/** The model and figures of a seeded answer (10+5 tokens in 100 ms), for rows that the activity views list. */
export const SEEDED_ANSWER = {
  requested_model: 'seed/model',
  model_id: 'seed/model',
  provider_id: 'seed',
  upstream_model: 'seed-upstream',
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  latency_ms: 100,
} satisfies Partial<UsageEventsTable>;

/** A settlement without a hold charging `cost` to user-1 and key-1, with its usage record (the Redis writer's tests). */
export function chargedSettlement(id: string, cost: number, now = Date.now()): Settlement {
  return {
    hold: null,
    userId: 'user-1',
    keyId: 'key-1',
    charge: cost,
    keySpend: cost,
    month: new Date(now).toISOString().slice(0, 7),
    tokens: null,
    now,
    record: {
      charge: true,
      event: usageEventRow({ id, user_id: 'user-1', key_id: 'key-1', cost_nanos: cost, created_at: now }),
    },
  };
}
