import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

let upstream: MockUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startMockUpstream({ scenario: { chunkCount: 3 } });
  gateway = await startTestGateway({
    configText: testConfigText(upstream.url).replace(
      'server:\n',
      'server:\n  cors_origins: [https://console.example.com]\n',
    ),
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function preflight(path: string, origin: string) {
  return fetch(`${gateway.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

describe('CORS', () => {
  it('/v1/* answers preflights for any origin, without credentials', async () => {
    const response = await preflight('/v1/chat/completions', 'https://app.example.org');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('a browser call to /v1 gets the allow-origin and exposed gateway headers', async () => {
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        origin: 'https://app.example.org',
        'content-type': 'application/json',
        authorization: `Bearer ${gateway.apiKey}`,
      },
      body: JSON.stringify({ model: 'test/chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toContain('x-gateway-provider');
  });

  it('/api-account/* allows only the configured origins, with credentials', async () => {
    const listed = await preflight('/api-account/user/me', 'https://console.example.com');
    expect(listed.status).toBe(204);
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://console.example.com');
    expect(listed.headers.get('access-control-allow-credentials')).toBe('true');
    const stranger = await preflight('/api-account/user/me', 'https://evil.example.net');
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });
});
