import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { SEEDED_ANSWER, usageEventRow } from '../helpers/usage-events.js';
import { setRole } from '../../src/users/user-roles.js';
import { randomIdGenerator } from '../../src/shared/ids.js';
import type { UsageEventsTable } from '../../src/metering/metering-schema.js';
import { iterateActivity } from '../../src/metering/activity-query.js';

/** Issue 27, item 1: GET /api-account/user/activity, one row per request, on both stores. */
interface Row {
  id: string;
  request_id: string;
  created_at: string;
  key_id: string | null;
  key_name: string | null;
  requested_model: string;
  model: string | null;
  provider: string | null;
  upstream_model: string | null;
  surface: string | null;
  app: string | null;
  app_url: string | null;
  streamed: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  cost_nanos: number;
  status: number;
  error_code: string | null;
  attempt_count: number;
}
interface Page {
  data: Row[];
  next_cursor: string | null;
  has_more: boolean;
  error?: { code: string; param: string | null; type: string };
}

const SEEDED = 45;
const SEED_TIME = Date.UTC(2025, 0, 15, 12, 0, 0);

describe.each(STORE_KINDS)('activity (%s)', (storeKind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let owner: AccountClient;
  let other: AccountClient;
  let admin: AccountClient;
  let otherUserId: string;
  let firstKeyId: string;
  let secondKeyId: string;
  const requestIds: string[] = [];
  let otherRequestId: string;

  const chat = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    requestJson(gateway.url, 'POST', '/v1/chat/completions', body, { authorization: `Bearer ${key}`, ...headers });
  const list = (client: AccountClient, query = '') => client.request<Page>('GET', `/api-account/user/activity${query}`);
  const idOf = async (client: AccountClient) => (await client.request('GET', '/api-account/user/me')).body.id as string;

  const seedRow = (index: number, extra: Partial<UsageEventsTable> = {}): UsageEventsTable =>
    usageEventRow({
      ...SEEDED_ANSWER,
      id: `seed-${String(index).padStart(3, '0')}`,
      request_id: `seed-request-${index}`,
      user_id: gateway.userId,
      cache_write_tokens: 0,
      cost_nanos: 1000,
      // Groups of five share a millisecond: the cursor must break ties by id.
      created_at: SEED_TIME + Math.floor(index / 5) * 1000,
      surface: 'chat',
      app: null,
      app_url: null,
      ...extra,
    });

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
    gateway = await startTestGateway({ configText: testConfigText(upstream.url), storeKind });
    const signIn = await requestJson(gateway.url, 'POST', '/api-account/auth/sign-in/email', {
      email: gateway.email,
      password: 'plum-orbit-42-lantern',
    });
    owner = new AccountClient(gateway.url, signIn.body.token, gateway.email);
    other = await AccountClient.signUp(gateway.url);
    otherUserId = await idOf(other);
    admin = await AccountClient.signUp(gateway.url, `admin-${randomIdGenerator.next('').toLowerCase()}@example.com`);
    await setRole(gateway.testStore.store.db, await idOf(admin), 'admin', Date.now());

    const second = await owner.request('POST', '/api-account/user/api-keys', { name: 'second key' });
    secondKeyId = second.body.key_id;
    firstKeyId = (await owner.request('GET', '/api-account/user/api-keys')).body.data.find(
      (key: { key_id: string }) => key.key_id !== secondKeyId,
    ).key_id;
    const otherKey = (await other.request('POST', '/api-account/user/api-keys', { name: 'other key' })).body.key;

    const appHeaders = { 'x-title': 'Plum Notes', 'http-referer': 'https://plum.example/notes' };
    const hello = { model: 'test/chat', messages: [{ role: 'user', content: 'hello' }] };
    for (const [key, body, headers, expected] of [
      [gateway.apiKey, hello, appHeaders, 200],
      [gateway.apiKey, { ...hello, stream: true }, {}, 200],
      [second.body.key, { ...hello, model: 'nobody/serves-this' }, {}, 404],
    ] as const) {
      const response = await chat(key, body, headers);
      expect(response.status).toBe(expected);
      requestIds.push(response.headers.get('x-request-id')!);
    }
    const otherResponse = await chat(otherKey, hello);
    expect(otherResponse.status).toBe(200);
    otherRequestId = otherResponse.headers.get('x-request-id')!;

    const db = gateway.testStore.store.db;
    for (let attempt = 0; attempt < 100; attempt++) {
      await gateway.gateway.metering!.flush();
      const written = await db.selectFrom('usage_events').select('id').execute();
      if (written.length >= 4) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await db
      .insertInto('usage_events')
      .values(Array.from({ length: SEEDED }, (_, index) => seedRow(index)))
      .execute();
    // Another account's row at the same time as the seeded ones: no page may show it.
    await db
      .insertInto('usage_events')
      .values(seedRow(999, { id: 'seed-other', request_id: 'seed-request-other', user_id: otherUserId }))
      .execute();
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('shows each request the user made, found by the x-request-id it was answered with', async () => {
    const response = await list(owner, `?start_date=${new Date().toISOString().slice(0, 10)}`);
    expect(response.status).toBe(200);
    const rows = response.body.data;
    expect(rows.map((row) => row.request_id).sort()).toEqual([...requestIds].sort());
    const byRequest = new Map(rows.map((row) => [row.request_id, row]));
    expect(byRequest.get(requestIds[0])).toMatchObject({
      key_id: firstKeyId,
      key_name: 'test key',
      requested_model: 'test/chat',
      model: 'test/chat',
      provider: 'mock',
      upstream_model: 'mock-model',
      surface: 'chat',
      app: 'Plum Notes',
      app_url: 'https://plum.example/notes',
      streamed: false,
      status: 200,
      error_code: null,
      attempt_count: 1,
    });
    expect(byRequest.get(requestIds[0])!.prompt_tokens).toBeGreaterThan(0);
    expect(byRequest.get(requestIds[0])!.cost_nanos).toBeGreaterThan(0);
    expect(byRequest.get(requestIds[1])).toMatchObject({ streamed: true, status: 200, app: null });
    expect(byRequest.get(requestIds[2])).toMatchObject({
      key_id: secondKeyId,
      key_name: 'second key',
      requested_model: 'nobody/serves-this',
      model: null,
      status: 404,
      error_code: 'model_not_found',
      cost_nanos: 0,
    });
    const times = rows.map((row) => Date.parse(row.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('answers one request with its attempts; another account’s request is a 404', async () => {
    const detail = await owner.request('GET', `/api-account/user/activity/${requestIds[0]}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ request_id: requestIds[0], currency: 'USD' });
    expect(detail.body.attempts).toEqual([
      expect.objectContaining({ provider: 'mock', model: 'test/chat', upstream_model: 'mock-model', status: 200 }),
    ]);
    const foreign = await owner.request('GET', `/api-account/user/activity/${otherRequestId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ type: 'not_found_error', code: 'request_not_found' });
    expect((await owner.request('GET', '/api-account/user/activity/seed-other')).status).toBe(404);
    expect((await other.request('GET', `/api-account/user/activity/${otherRequestId}`)).status).toBe(200);
  });

  it('isolation: no account sees another’s rows, in pages, exports or lookups', async () => {
    const otherRows = (await list(other, '?limit=200')).body.data;
    expect(otherRows.map((row) => row.request_id).sort()).toEqual([otherRequestId, 'seed-request-other'].sort());
    const ownerIds = new Set<string>();
    let cursor: string | null = null;
    do {
      const page: Page = (await list(owner, `?limit=200${cursor ? `&cursor=${cursor}` : ''}`)).body;
      for (const row of page.data) ownerIds.add(row.request_id);
      cursor = page.next_cursor;
    } while (cursor);
    expect(ownerIds.size).toBe(SEEDED + 3);
    expect(ownerIds.has(otherRequestId)).toBe(false);
    expect(ownerIds.has('seed-request-other')).toBe(false);
    const exported = await requestJson(gateway.url, 'GET', '/api-account/user/activity?format=jsonl', undefined, {
      authorization: `Bearer ${owner.token}`,
    });
    expect(exported.text).not.toContain(otherRequestId);
    expect(exported.text).not.toContain('seed-request-other');
  });

  it('filters by key, status (ok, error, an HTTP status, an error code), model, provider, app and dates', async () => {
    const ids = async (query: string) => {
      const response = await list(owner, `?limit=200&${query}`);
      expect(response.status).toBe(200);
      return response.body.data.map((row) => row.request_id);
    };
    expect(await ids(`key_id=${secondKeyId}`)).toEqual([requestIds[2]]);
    expect(await ids('status=error')).toEqual([requestIds[2]]);
    expect(await ids('status=404')).toEqual([requestIds[2]]);
    expect(await ids('status=model_not_found')).toEqual([requestIds[2]]);
    expect(await ids(`status=ok&key_id=${firstKeyId}`)).toEqual([requestIds[1], requestIds[0]]);
    expect((await ids('status=ok')).length).toBe(SEEDED + 2);
    expect((await ids('model=test/chat')).sort()).toEqual(requestIds.slice(0, 2).sort());
    expect((await ids('provider=seed')).length).toBe(SEEDED);
    expect(await ids('app=Plum%20Notes')).toEqual([requestIds[0]]);
    expect((await ids('start_date=2025-01-15&end_date=2025-01-15')).length).toBe(SEEDED);
    // An instant bound is exact: the first two groups of five start before SEED_TIME + 2 s.
    const until = new Date(SEED_TIME + 2000).toISOString();
    expect((await ids(`start_date=2025-01-15&end_date=${until}`)).length).toBe(10);
    expect(await ids('end_date=2025-01-14')).toEqual([]);
  });

  it('pages by an opaque cursor: every row once, in order, stable when newer requests arrive meanwhile', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await list(owner, `?provider=seed&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((row) => row.id));
      expect(response.body.has_more).toBe(response.body.next_cursor !== null);
      cursor = response.body.next_cursor;
      if (pages++ === 1) {
        // A newer request lands while the user is on page 2: later pages neither repeat nor skip a row.
        await gateway.testStore.store.db
          .insertInto('usage_events')
          .values(seedRow(500, { id: 'seed-late', created_at: SEED_TIME + 60_000 }))
          .execute();
      }
    } while (cursor && pages < 20);
    const expected = Array.from({ length: SEEDED }, (_, index) => seedRow(index))
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
      .map((row) => row.id);
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(SEEDED / 7));
    await gateway.testStore.store.db.deleteFrom('usage_events').where('id', '=', 'seed-late').execute();
  });

  it('exports every matching row as CSV and JSON Lines, streamed', async () => {
    const get = (query: string) =>
      fetch(`${gateway.url}/api-account/user/activity${query}`, {
        headers: { authorization: `Bearer ${owner.token}` },
      });
    const csv = await get('?format=csv&provider=seed');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toContain('activity.csv');
    const lines = (await csv.text()).split('\r\n').filter(Boolean);
    expect(lines[0].split(',').slice(0, 3)).toEqual(['created_at', 'request_id', 'id']);
    expect(lines).toHaveLength(SEEDED + 1);
    expect(lines[1]).toContain('seed-044');

    const jsonl = await get('?format=jsonl');
    expect(jsonl.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const objects = (await jsonl.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Row);
    expect(objects).toHaveLength(SEEDED + 3);
    expect(objects.find((row) => row.request_id === requestIds[0])).toMatchObject({ app: 'Plum Notes' });
  });

  it('the export reads batch after batch by keyset: every row once, across batch boundaries', async () => {
    const ids: string[] = [];
    for await (const row of iterateActivity(gateway.testStore.store.db, gateway.userId, { provider: 'seed' }, 7))
      ids.push(row.id);
    expect(ids).toHaveLength(SEEDED);
    expect(new Set(ids).size).toBe(SEEDED);
  });

  it('refuses bad input with a 400 naming the parameter, and answers 401 without a session', async () => {
    for (const [query, param] of [
      ['?cursor=not-a-cursor', 'cursor'],
      ['?start_date=2025-02-30', 'start_date'],
      ['?end_date=yesterday', 'end_date'],
      ['?start_date=2025-02-02&end_date=2025-02-01', 'start_date'],
    ] as const) {
      const response = await list(owner, query);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    for (const query of ['?limit=0', '?limit=201', '?format=xml', '?sort=cost']) {
      expect((await list(owner, query)).status, query).toBe(400);
    }
    expect((await requestJson(gateway.url, 'GET', '/api-account/user/activity')).status).toBe(401);
  });

  it('admins read any account’s activity; members may not', async () => {
    const path = `/api-account/admin/users/${gateway.userId}/activity`;
    expect((await other.request('GET', path)).status).toBe(403);
    const page = await admin.request<Page>('GET', `${path}?key_id=${secondKeyId}`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((row) => row.request_id)).toEqual([requestIds[2]]);
    const detail = await admin.request('GET', `${path}/${requestIds[0]}`);
    expect(detail.status).toBe(200);
    expect(detail.body.attempts).toHaveLength(1);
    expect((await admin.request('GET', `${path}/${otherRequestId}`)).status).toBe(404);
    expect((await admin.request('GET', `/api-account/admin/users/no-such-user/activity`)).status).toBe(404);
  });
});
