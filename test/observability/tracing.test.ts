import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../src/mock-upstream/mock-upstream.js';
import { startTestGateway, testConfigText, type TestGateway } from '../helpers/test-gateway.js';
import { chat } from '../metering/metering-helpers.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** A tiny OTLP/HTTP receiver: keeps every span exported to POST /v1/traces (JSON encoding). */
async function startOtlpReceiver(): Promise<{
  url: string;
  spans: OtlpSpan[];
  bodies: string[];
  close(): Promise<void>;
}> {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      if (request.url !== '/v1/traces' || !String(request.headers['content-type']).includes('json')) {
        response.writeHead(415).end();
        return;
      }
      bodies.push(text);
      const body = JSON.parse(text) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((item) => item.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

const PROMPT = 'a confidential prompt about the quarterly numbers';

describe('OpenTelemetry traces to an OTLP receiver', () => {
  let upstream: MockUpstream;
  let gateway: TestGateway;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let calls = 0;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // The first upstream call fails, every later one answers: one request, two attempts.
    upstream = await startMockUpstream({
      scenario: () => (++calls === 1 ? { failure: { kind: 'status', status: 503 } } : { chunkCount: 3 }),
    });
    gateway = await startTestGateway({
      configText: testConfigText(
        upstream.url,
        `routing:\n  retries: 1\n  backoff_base_ms: 1\n  backoff_max_ms: 2\ntracing:\n  endpoint: ${receiver.url}\n  service_name: gateway-under-test\n`,
      ),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    await receiver?.close();
  });

  it('exports one server span per request with a child span per upstream attempt, and no secrets', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpanId = '00f067aa0ba902b7';
    const response = await chat(
      gateway.url,
      gateway.apiKey,
      { messages: [{ role: 'user', content: PROMPT }] },
      {
        headers: {
          authorization: `Bearer ${gateway.apiKey}`,
          'content-type': 'application/json',
          traceparent: `00-${traceId}-${callerSpanId}-01`,
        },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-attempts')).toBe('2');
    await response.text();
    await fetch(`${gateway.url}/v1/models`).then((answer) => answer.text());
    await gateway.gateway.observability.tracing!.flush();

    const server = receiver.spans.find((span) => span.name === 'POST /v1/chat/completions')!;
    expect(server).toBeDefined();
    expect(server.kind).toBe(2); // SERVER
    // It joins the caller's trace.
    expect(server.traceId).toBe(traceId);
    expect(server.parentSpanId).toBe(callerSpanId);
    expect(attribute(server, 'http.response.status_code')).toBe(200);
    expect(attribute(server, 'http.route')).toBe('/v1/chat/completions');
    expect(attribute(server, 'gen_ai.response.model')).toBe('test/chat');
    expect(attribute(server, 'gen_ai.provider.name')).toBe('mock');
    expect(attribute(server, 'gateway.attempts')).toBe(2);
    expect(Number(attribute(server, 'gen_ai.usage.output_tokens'))).toBeGreaterThan(0);

    const attempts = receiver.spans
      .filter((span) => span.parentSpanId === server.spanId)
      .sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)));
    expect(attempts.map((span) => span.name)).toEqual(['upstream mock', 'upstream mock']);
    expect(attempts.every((span) => span.kind === 3)).toBe(true); // CLIENT
    expect(attempts.every((span) => span.traceId === traceId)).toBe(true);
    expect(attempts.map((span) => attribute(span, 'http.response.status_code'))).toEqual([503, 200]);
    expect(attempts[0].status?.code).toBe(2); // ERROR
    expect(attribute(attempts[0], 'error.type')).toBeTruthy();
    expect(attribute(attempts[1], 'gen_ai.request.model')).toBe('mock-model');
    // Attempts sit inside their request, in time.
    for (const attempt of attempts) {
      expect(BigInt(attempt.startTimeUnixNano) >= BigInt(server.startTimeUnixNano)).toBe(true);
      expect(BigInt(attempt.endTimeUnixNano) <= BigInt(server.endTimeUnixNano)).toBe(true);
    }

    // Other routes get their own span; the resource names the service.
    expect(receiver.spans.some((span) => span.name === 'GET /v1/models')).toBe(true);
    const everything = receiver.bodies.join('\n');
    expect(everything).toContain('gateway-under-test');
    for (const secret of [PROMPT, 'quarterly', gateway.apiKey, 'upstream-secret', gateway.email])
      expect(everything).not.toContain(secret);
  });
});

describe('tracing is off unless configured', () => {
  it('builds no tracer and exports nothing without an endpoint', async () => {
    const upstream = await startMockUpstream();
    const gateway = await startTestGateway({ configText: testConfigText(upstream.url) });
    try {
      expect(gateway.gateway.observability.tracing).toBeNull();
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
