import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('the web console served at /', () => {
  let gateway: TestGateway;
  let missing: TestGateway;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log("app")');
    gateway = await startTestGateway({ configText: testConfigText('http://127.0.0.1:9'), deps: { consoleDir: dir } });
    missing = await startTestGateway({
      configText: testConfigText('http://127.0.0.1:9'),
      deps: { consoleDir: join(dir, 'not-built') },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await missing?.close();
  });

  it('serves index.html at / and for deep links, never cached', async () => {
    for (const path of ['/', '/keys', '/rankings', '/models/openai/gpt-4o', '/credits/result?order_id=ord_1']) {
      const response = await fetch(`${gateway.url}${path}`, { headers: { accept: HTML } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(await response.text()).toContain('<div id="root">');
    }
  });

  it('serves hashed assets for a year, immutable', async () => {
    const response = await fetch(`${gateway.url}/assets/index-AbC123.js`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await response.text()).toBe('console.log("app")');
    const absent = await fetch(`${gateway.url}/assets/nope.js`, { headers: { accept: HTML } });
    expect(absent.status).toBe(404);
    expect((await absent.json()).error.code).toBe('unknown_url');
  });

  it('leaves the API alone: unknown API paths stay JSON 404 envelopes even for a browser', async () => {
    for (const path of ['/v1', '/v1/nope', '/api-account/nope', '/rankings/nope', '/billing/nope', '/health/x']) {
      const response = await fetch(`${gateway.url}${path}`, { headers: { accept: HTML } });
      expect(response.status, path).toBe(404);
      expect((await response.json()).error).toMatchObject({ type: 'not_found_error', code: 'unknown_url' });
    }
    // A non-browser client asking for an unknown page gets the JSON 404 too.
    const api = await fetch(`${gateway.url}/keys`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(404);
    expect((await api.json()).error.code).toBe('unknown_url');
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/openapi.json`)).headers.get('content-type')).toContain('application/json');
  });

  it('says how to build the console when it is missing', async () => {
    const response = await fetch(`${missing.url}/usage`, { headers: { accept: HTML } });
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(text).toContain('The web console is not built');
    expect(text).toContain('npm run build');
  });
});
