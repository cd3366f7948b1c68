import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { AccountClient, requestJson } from '../helpers/account-client.js';
import { STORE_KINDS } from '../helpers/test-store.js';
import { setRole } from '../../src/users/user-roles.js';
import { randomIdGenerator } from '../../src/shared/ids.js';

/** Issue 27, item 3: content logging, opt-in per key (log_content), on both stores. */
interface KeptBody {
  text: string;
  bytes: number;
  truncated: boolean;
}
interface Content {
  request: KeptBody;
  response: KeptBody;
  response_type: string | null;
}

const CAP = 2048;
const DAY_MS = 86_400_000;
const hello = { model: 'test/chat', messages: [{ role: 'user', content: 'hello plum' }] };

describe.each(STORE_KINDS)('activity content (%s)', (storeKind) => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let owner: AccountClient;
  let other: AccountClient;
  let admin: AccountClient;
  let ownerId: string;
  let loggedKey: string;
  let loggedKeyId: string;

  const chat = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    requestJson(gateway.url, 'POST', '/v1/chat/completions', body, { authorization: `Bearer ${key}`, ...headers });
  const idOf = async (client: AccountClient) => (await client.request('GET', '/api-account/user/me')).body.id as string;
  const contentRows = (userId: string) =>
    gateway.testStore.store.db.selectFrom('request_contents').selectAll().where('user_id', '=', userId).execute();

  /** The detail once its usage event and its content are written (both are written after the answer). */
  async function detailWithContent(client: AccountClient, path: string): Promise<{ content: Content | null }> {
    for (let attempt = 0; attempt < 100; attempt++) {
      await gateway.gateway.metering!.flush();
      await gateway.gateway.contentLog.flush();
      const detail = await client.request('GET', path);
      if (detail.status === 200 && detail.body.content !== null) return detail.body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no content at ${path}`);
  }
  async function usageWritten(requestId: string): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      await gateway.gateway.metering!.flush();
      const row = await gateway.testStore.store.db
        .selectFrom('usage_events')
        .select('id')
        .where('request_id', '=', requestId)
        .executeTakeFirst();
      if (row) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no usage event for ${requestId}`);
  }

  beforeAll(async () => {
    upstream = await startMockUpstream({ scenario: { chunkCount: 5 } });
    gateway = await startTestGateway({
      configText: testConfigText(upstream.url, `activity:\n  content_max_bytes: ${CAP}\n  content_retention_days: 7\n`),
      storeKind,
    });
    owner = await AccountClient.signIn(gateway.url, gateway.email);
    ownerId = await idOf(owner);
    other = await AccountClient.signUp(gateway.url);
    admin = await AccountClient.signUp(gateway.url, `admin-${randomIdGenerator.next('').toLowerCase()}@example.com`);
    await setRole(gateway.testStore.store.db, await idOf(admin), 'admin', Date.now());
    const created = await owner.request('POST', '/api-account/user/api-keys', { name: 'logged', log_content: true });
    expect(created.status).toBe(201);
    loggedKey = created.body.key;
    loggedKeyId = created.body.key_id;
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('is off by default: a key keeps nothing, and says so', async () => {
    const keys = (await owner.request('GET', '/api-account/user/api-keys')).body.data as Array<{
      name: string;
      log_content: boolean;
    }>;
    expect(keys.find((key) => key.name === 'test key')!.log_content).toBe(false);
    expect(keys.find((key) => key.name === 'logged')!.log_content).toBe(true);
    const response = await chat(gateway.apiKey, hello);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    await usageWritten(requestId);
    await gateway.gateway.contentLog.flush();
    const detail = await owner.request('GET', `/api-account/user/activity/${requestId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.content).toBeNull();
    const rows = await gateway.testStore.store.db
      .selectFrom('request_contents')
      .select('id')
      .where('request_id', '=', requestId)
      .execute();
    expect(rows).toEqual([]);
  });

  it('keeps a JSON request and answer, compressed, and shows them decoded on the request', async () => {
    const response = await chat(loggedKey, hello);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const detail = await detailWithContent(owner, `/api-account/user/activity/${requestId}`);
    const content = detail.content!;
    expect(JSON.parse(content.request.text)).toEqual(hello);
    expect(content.request).toMatchObject({ truncated: false, bytes: JSON.stringify(hello).length });
    expect(content.response_type).toContain('application/json');
    expect(JSON.parse(content.response.text)).toEqual(response.body);
    expect(content.response.truncated).toBe(false);
    const [row] = (await contentRows(ownerId)).filter((kept) => kept.request_id === requestId);
    expect(row).toMatchObject({ encoding: 'gzip', key_id: loggedKeyId });
    // Stored compressed: gzip's magic bytes, not the JSON text.
    expect([...Buffer.from(row!.request_body!).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
  });

  it('keeps a stream as the SSE events the client received', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${loggedKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...hello, stream: true }),
    });
    const received = await response.text();
    const requestId = response.headers.get('x-request-id')!;
    const detail = await detailWithContent(owner, `/api-account/user/activity/${requestId}`);
    expect(detail.content!.response_type).toContain('text/event-stream');
    expect(detail.content!.response.text).toBe(received);
    expect(detail.content!.response.text).toContain('data: [DONE]');
    expect(JSON.parse(detail.content!.request.text)).toMatchObject({ stream: true });
  });

  it('keeps the bodies of every surface as its client saw them (Messages here)', async () => {
    const body = { model: 'test/chat', max_tokens: 50, messages: [{ role: 'user', content: 'hello messages' }] };
    const response = await requestJson(gateway.url, 'POST', '/v1/messages', body, {
      'x-api-key': loggedKey,
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(200);
    const detail = await detailWithContent(owner, `/api-account/user/activity/${response.headers.get('x-request-id')}`);
    expect(JSON.parse(detail.content!.request.text)).toEqual(body);
    expect(JSON.parse(detail.content!.response.text)).toEqual(response.body);
    expect(response.body.type).toBe('message');
  });

  it('cuts a body at activity.content_max_bytes and records its whole size', async () => {
    const long = { ...hello, messages: [{ role: 'user', content: 'plum '.repeat(1000) }] };
    const response = await chat(loggedKey, long);
    expect(response.status).toBe(200);
    const detail = await detailWithContent(owner, `/api-account/user/activity/${response.headers.get('x-request-id')}`);
    expect(detail.content!.request).toMatchObject({ truncated: true, bytes: JSON.stringify(long).length });
    expect(Buffer.byteLength(detail.content!.request.text)).toBe(CAP);
    expect(detail.content!.response.truncated).toBe(false);
  });

  it('keeps an error answer too (the envelope the client got)', async () => {
    const response = await chat(loggedKey, { ...hello, model: 'nobody/serves-this' });
    expect(response.status).toBe(404);
    const detail = await detailWithContent(owner, `/api-account/user/activity/${response.headers.get('x-request-id')}`);
    expect(JSON.parse(detail.content!.response.text)).toEqual(response.body);
  });

  it('shows no account another’s content, even under the same x-request-id; an admin sees it', async () => {
    const requestId = `shared-${randomIdGenerator.next('').toLowerCase()}`;
    expect((await chat(loggedKey, hello, { 'x-request-id': requestId })).status).toBe(200);
    await detailWithContent(owner, `/api-account/user/activity/${requestId}`);
    const foreign = await other.request('GET', `/api-account/user/activity/${requestId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'request_not_found' });
    // The other account logs its own content under the same request id: each sees only its own.
    const otherKey = await other.request('POST', '/api-account/user/api-keys', { name: 'o', log_content: true });
    const secret = { ...hello, messages: [{ role: 'user', content: 'other secret' }] };
    expect((await chat(otherKey.body.key, secret, { 'x-request-id': requestId })).status).toBe(200);
    const theirs = await detailWithContent(other, `/api-account/user/activity/${requestId}`);
    expect(theirs.content!.request.text).toContain('other secret');
    const mine = await detailWithContent(owner, `/api-account/user/activity/${requestId}`);
    expect(mine.content!.request.text).not.toContain('other secret');
    const asAdmin = await detailWithContent(admin, `/api-account/admin/users/${ownerId}/activity/${requestId}`);
    expect(asAdmin.content!.request.text).toContain('hello plum');
    const notAdmin = await other.request('GET', `/api-account/admin/users/${ownerId}/activity/${requestId}`);
    expect(notAdmin.status).toBe(403);
  });

  it('turns on and off through the key update; a key turned off keeps nothing more', async () => {
    const patched = await owner.request('PATCH', `/api-account/user/api-keys/${loggedKeyId}`, { log_content: false });
    expect(patched.status).toBe(200);
    expect(patched.body.log_content).toBe(false);
    const response = await chat(loggedKey, hello);
    const requestId = response.headers.get('x-request-id')!;
    await usageWritten(requestId);
    await gateway.gateway.contentLog.flush();
    expect((await owner.request('GET', `/api-account/user/activity/${requestId}`)).body.content).toBeNull();
    const back = await owner.request('PATCH', `/api-account/user/api-keys/${loggedKeyId}`, { log_content: true });
    expect(back.body.log_content).toBe(true);
  });

  it('refuses a log_content that is not a boolean, in the envelope', async () => {
    for (const [method, path] of [
      ['POST', '/api-account/user/api-keys'],
      ['PATCH', `/api-account/user/api-keys/${loggedKeyId}`],
    ] as const) {
      for (const value of ['yes', 1, null]) {
        const response = await owner.request(method, path, { name: 'bad', log_content: value });
        expect(response.status).toBe(400);
        expect(response.body.error).toMatchObject({ type: 'invalid_request_error' });
        expect(response.body.error.message).toContain('log_content');
      }
    }
  });

  it('erases content past the retention, keeping the recent', async () => {
    const response = await chat(loggedKey, hello);
    const requestId = response.headers.get('x-request-id')!;
    await detailWithContent(owner, `/api-account/user/activity/${requestId}`);
    const db = gateway.testStore.store.db;
    await db
      .insertInto('request_contents')
      .values({
        id: `rc_old_${randomIdGenerator.next('')}`,
        user_id: ownerId,
        key_id: loggedKeyId,
        request_id: 'old-request',
        created_at: Date.now() - 8 * DAY_MS,
        encoding: 'gzip',
        request_body: null,
        request_bytes: 0,
        request_truncated: 0,
        response_body: null,
        response_bytes: 0,
        response_truncated: 0,
        response_type: null,
      })
      .execute();
    expect(await gateway.gateway.contentLog.sweep()).toBeGreaterThanOrEqual(1);
    const left = (await contentRows(ownerId)).map((row) => row.request_id);
    expect(left).not.toContain('old-request');
    expect(left).toContain(requestId);
  });

  it('never writes a body to the logs or the metrics', async () => {
    const metrics = await fetch(`${gateway.url}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(gateway.logs.length).toBeGreaterThan(0);
    for (const marker of ['hello plum', 'other secret', 'hello messages', 'plum plum'])
      for (const place of [gateway.logs.join(''), text]) expect(place).not.toContain(marker);
  });

  it('erases an account’s content with the account', async () => {
    const leaving = await AccountClient.signUp(gateway.url);
    const leavingId = await idOf(leaving);
    const key = await leaving.request('POST', '/api-account/user/api-keys', { name: 'l', log_content: true });
    const response = await chat(key.body.key, hello);
    await detailWithContent(leaving, `/api-account/user/activity/${response.headers.get('x-request-id')}`);
    expect(await contentRows(leavingId)).toHaveLength(1);
    const erased = await leaving.request('DELETE', '/api-account/user/me', { password: 'plum-orbit-42-lantern' });
    expect(erased.status).toBe(200);
    expect(await contentRows(leavingId)).toEqual([]);
    // Others' content is untouched.
    expect((await contentRows(ownerId)).length).toBeGreaterThan(0);
  });
});
