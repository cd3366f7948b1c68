import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/database.js';
import { runCreditsCommand } from '../../src/cli/credits-command.js';
import { createUser } from '../../src/users/create-user.js';
import { getBalance } from '../../src/credits/credit-ledger.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { STORE_KINDS } from '../helpers/test-store.js';

/*
 * Issue 16, finding 9 (the parts that are not about sessions): a catalog path decoded twice
 * answered 500; `credits grant --reference` was unique across users, so a second user's grant
 * silently did nothing; the router's and Node's own errors escaped the error envelope.
 */
function expectEnvelope(body: unknown, status: number, code: string): void {
  expect(body).toEqual({
    error: { message: expect.any(String), type: expect.any(String), code, param: expect.toSatisfy(() => true) },
  });
  expect(status).toBeGreaterThanOrEqual(400);
  expect(status).toBeLessThan(500);
}

/** Sends raw bytes and returns the raw answer (for what fetch refuses to send). */
function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = '';
    socket.on('data', (data) => (answer += data.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
  });
}

function parseRaw(answer: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  return { status, body: JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) };
}

describe.each(STORE_KINDS)('finding 9 on %s', (storeKind) => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway({ configText: testConfigText(upstream.url), storeKind });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('/api-account/models/%25 is a clean 404, and nothing is logged as an error', async () => {
    const logsBefore = gateway.logs.length;
    const response = await fetch(`${gateway.url}/api-account/models/%25`);
    expect(response.status).toBe(404);
    expectEnvelope(await response.json(), response.status, 'model_not_found');
    const slashed = await fetch(`${gateway.url}/api-account/models/anthropic%2F%25x`);
    expect(slashed.status).toBe(404);
    expect(gateway.logs.slice(logsBefore).join('')).not.toMatch(/"level":50/);
  });

  it('a malformed percent-encoding is 400 invalid_url in the envelope', async () => {
    const response = await fetch(`${gateway.url}/api-account/providers/%E0%A4%A`);
    expect(response.status).toBe(400);
    expectEnvelope(await response.json(), response.status, 'invalid_url');
  });

  it('a path parameter past the router’s limit is answered in the envelope', async () => {
    // The router gives up on a parameter over its limit and the not-found handler answers; the
    // router's own 414 (url_too_long) is mapped too (src/http/error-handler.test.ts).
    const response = await fetch(`${gateway.url}/api-account/providers/${'a'.repeat(300)}`);
    expect(response.status).toBe(404);
    expectEnvelope(await response.json(), response.status, 'unknown_url');
    const longUrl = await fetch(`${gateway.url}/v1/${'a'.repeat(5_000)}`);
    expect(longUrl.status).toBe(404);
    const body = (await longUrl.json()) as { error: { message: string } };
    expectEnvelope(body, longUrl.status, 'unknown_url');
    // The path is quoted, not echoed whole.
    expect(body.error.message.length).toBeLessThan(300);
  });

  it('a wrong content type, bad JSON and an oversized body are answered in the envelope', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${gateway.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.apiKey}`, ...headers },
        body,
      });
    const wrongType = await post({ 'content-type': 'application/x-www-form-urlencoded' }, 'model=x');
    expect(wrongType.status).toBe(415);
    expectEnvelope(await wrongType.json(), wrongType.status, 'unsupported_media_type');
    const badJson = await post({ 'content-type': 'application/json' }, '{"model":');
    expect(badJson.status).toBe(400);
    expectEnvelope(await badJson.json(), badJson.status, 'invalid_json');
    const poisoned = await post({ 'content-type': 'application/json' }, '{"model":"test/chat","__proto__":{"x":1}}');
    expect(poisoned.status).toBe(400);
    expectEnvelope(await poisoned.json(), poisoned.status, 'invalid_json');
    const plainText = await post({ 'content-type': 'text/plain' }, 'hello');
    expect(plainText.status).toBe(400);
    expect(((await plainText.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const tooLarge = await post({ 'content-type': 'application/json' }, `{"x":"${'y'.repeat(70_000)}"}`);
    expect(tooLarge.status).toBe(413);
    expectEnvelope(await tooLarge.json(), tooLarge.status, 'payload_too_large');
  });

  it('Node’s own refusals (headers too large, a malformed request) are answered in the envelope', async () => {
    const huge = parseRaw(
      await rawRequest(gateway.url, `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(huge.status).toBe(431);
    expectEnvelope(huge.body, huge.status, 'headers_too_large');
    const garbage = parseRaw(await rawRequest(gateway.url, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expectEnvelope(garbage.body, garbage.status, 'bad_request');
  });

  it('credits grant --reference is unique per user: another user’s grant applies, a repeat says it changed nothing', async () => {
    const { store, url, searchPath } = gateway.testStore;
    const other = `other-${Date.now()}@example.com`;
    await createUser(gateway.auth, store, { email: other, password: 'plum-orbit-42-lantern' });
    const output: string[] = [];
    const run = (email: string) =>
      runCreditsCommand(
        'grant',
        ['--email', email, '--amount', '2', '--reference', 'promo-2026'],
        async () => openStore(url, { searchPath }),
        (text) => output.push(text),
      );
    await run(gateway.email);
    await run(other);
    await run(other);
    expect(output[0]).toMatch(/^granted 2 USD to .*; balance 2 USD/);
    expect(output[1]).toMatch(new RegExp(`^granted 2 USD to ${other}; balance 2 USD`));
    expect(output[2]).toMatch(new RegExp(`reference promo-2026 was already applied to ${other}; nothing changed`));
    expect(await getBalance(store, gateway.userId)).toBe(2_000_000_000);
    const otherUser = await store.db
      .selectFrom('user')
      .select('id')
      .where('email', '=', other)
      .executeTakeFirstOrThrow();
    expect(await getBalance(store, otherUser.id)).toBe(2_000_000_000);
  });
});
