import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

// CONTRACT §3: no key or a bad key is a 401, whatever the body holds. The key is checked before
// the body is parsed or validated, so only a caller with a valid key is told what is wrong with it.

let upstream: MockUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 1 } });
  gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const wrongKey = 'sk-gw-' + 'x'.repeat(40);

// Each body fails the route's schema (a required field is missing, another has the wrong type).
const routes: Array<[string, object]> = [
  ['/v1/chat/completions', { model: 42 }],
  ['/v1/embeddings', { model: 'test/chat', input: { not: 'text' } }],
  ['/v1/responses', { model: 'test/chat', input: 5 }],
  ['/v1/messages', { model: 'test/chat', messages: 'hi' }],
];

async function post(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** The error object of either envelope: OpenAI's {"error":{…}} or Anthropic's {"type":"error","error":{…}}. */
const errorOf = (body: Record<string, any>) => body.error as { type: string; code?: string | null; message: string };

describe.each(routes)('POST %s authenticates before it validates the body', (path, badBody) => {
  const json = JSON.stringify(badBody);

  it('no key and an invalid body: 401 missing_api_key', async () => {
    const result = await post(path, json, {});
    expect(result.status).toBe(401);
    expect(errorOf(result.body).type).toBe('authentication_error');
    if (path === '/v1/messages') expect(errorOf(result.body).message).toMatch(/Missing API key/);
    else expect(errorOf(result.body).code).toBe('missing_api_key');
  });

  it('a wrong key and an invalid body: 401', async () => {
    const bearer = await post(path, json, { authorization: `Bearer ${wrongKey}` });
    expect(bearer.status).toBe(401);
    expect(errorOf(bearer.body).type).toBe('authentication_error');
    const viaHeader = await post(path, json, { 'x-api-key': wrongKey });
    expect(viaHeader.status).toBe(401);
  });

  it('no key and a body that is not JSON: 401, the body is not read', async () => {
    const result = await post(path, '{"model":', {});
    expect(result.status).toBe(401);
  });

  it('a valid key and an invalid body: 400 invalid_request_error', async () => {
    const result = await post(path, json, { authorization: `Bearer ${gateway.apiKey}` });
    expect(result.status).toBe(400);
    expect(errorOf(result.body).type).toBe('invalid_request_error');
    expect(upstream.requests).toHaveLength(0);
  });
});
