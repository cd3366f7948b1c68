import type { TestGateway } from '../helpers/test-gateway.js';
import { sql } from 'kysely';
import type { Store } from '../../src/store/database.js';
import { estimatePromptSize } from '../../src/metering/estimate-tokens.js';

/** Signs the test user in and returns a bearer token for /api-account/user/*. */
export async function signIn(gateway: TestGateway): Promise<string> {
  const response = await fetch(`${gateway.url}/api-account/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: gateway.email, password: 'plum-orbit-42-lantern' }),
  });
  const body = (await response.json()) as { token: string };
  if (!body.token) throw new Error(`sign-in failed: ${JSON.stringify(body)}`);
  return body.token;
}

export async function accountGet(
  gateway: TestGateway,
  token: string,
  path: string,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

/**
 * The credit hold of one chat() with `max_tokens` on test/chat ($0.5/M prompt, $1.5/M completion):
 * admission's prompt size plus the output allowed. N of them fit in a balance of N holds at once.
 */
export function holdOfChat(maxTokens: number): number {
  const promptSize = estimatePromptSize({ model: 'test/chat', messages: [{ role: 'user', content: 'hello there' }] });
  return promptSize * 500 + maxTokens * 1500;
}

export function chat(
  url: string,
  apiKey: string,
  body: Record<string, unknown>,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hello there' }], ...body }),
    ...init,
  });
}

/** The three figures that must agree to the unit: usage costs, ledger usage charges, balance movement. */
export async function ledgerFigures(store: Store, userId: string) {
  const usage = await store.db
    .selectFrom('usage_events')
    .select([sql<number>`count(*)`.as('events'), sql<number>`cast(coalesce(sum(cost_nanos), 0) as bigint)`.as('cost')])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  const charges = await store.db
    .selectFrom('credit_ledger')
    .select([
      sql<number>`count(*)`.as('entries'),
      sql<number>`cast(coalesce(sum(amount_nanos), 0) as bigint)`.as('amount'),
    ])
    .where('user_id', '=', userId)
    .where('kind', '=', 'usage')
    .executeTakeFirstOrThrow();
  const balance = await store.db
    .selectFrom('credit_balances')
    .select('balance_nanos')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return {
    events: Number(usage.events),
    usageCost: Number(usage.cost),
    chargeEntries: Number(charges.entries),
    charged: 0 - Number(charges.amount) || 0,
    balance: Number(balance?.balance_nanos ?? 0),
  };
}
