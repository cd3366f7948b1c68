import { describe, expect, it } from 'vitest';
import { readMetricsSettings, readTracingSettings } from './observability-settings.js';

const server = { host: '127.0.0.1' } as never;
const metrics = (section: Record<string, unknown>) => readMetricsSettings({ sections: { metrics: section }, server });
const tracing = (section: Record<string, unknown>, env: Record<string, string> = {}) =>
  readTracingSettings({ sections: { tracing: section } }, env);

describe('metrics settings', () => {
  it('defaults to open metrics at /metrics on the API port', () => {
    expect(metrics({})).toEqual({ enabled: true, path: '/metrics', bearerToken: null, port: null, host: '127.0.0.1' });
  });

  it('takes a token, an admin port and host; an empty token (unset variable) means none', () => {
    expect(metrics({ bearer_token: 't', port: 9464, host: '0.0.0.0' })).toMatchObject({
      bearerToken: 't',
      port: 9464,
      host: '0.0.0.0',
    });
    expect(metrics({ bearer_token: '' }).bearerToken).toBeNull();
  });

  it.each([
    [{ enabled: 'yes' }, 'metrics.enabled must be true or false'],
    [{ path: 'metrics' }, 'metrics.path must be a URL path such as /metrics'],
    [{ bearer_token: 12 }, 'metrics.bearer_token must be a string'],
    [{ port: 70000 }, 'metrics.port must be an integer from 0 to 65535'],
  ])('refuses %j', (section, message) => {
    expect(() => metrics(section)).toThrow(message);
  });
});

describe('tracing settings', () => {
  it('is off without an endpoint, on with one (config or OTEL variables)', () => {
    expect(tracing({}).enabled).toBe(false);
    expect(tracing({ endpoint: 'http://c:4318/v1/traces' })).toMatchObject({ enabled: true, sampleRatio: 1 });
    expect(tracing({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toMatchObject({
      enabled: true,
      endpoint: 'http://c:4318/v1/traces',
    });
    expect(tracing({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:9/t', OTEL_SERVICE_NAME: 'gw' })).toMatchObject({
      endpoint: 'http://c:9/t',
      serviceName: 'gw',
    });
    expect(tracing({ enabled: false, endpoint: 'http://c:4318/v1/traces' }).enabled).toBe(false);
  });

  it.each([
    [{ endpoint: 'c:4318' }, 'tracing.endpoint must be an http(s) URL'],
    [{ enabled: true }, 'tracing.enabled is true but no tracing.endpoint is set'],
    [{ endpoint: 'http://c', sample_ratio: 2 }, 'tracing.sample_ratio must be a number from 0 to 1'],
    [{ endpoint: 'http://c', headers: { a: 1 } }, 'tracing.headers must map header names to strings'],
  ])('refuses %j', (section, message) => {
    expect(() => tracing(section)).toThrow(message);
  });
});
