import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/**
 * The stream path reads the upstream body to its end after [DONE] instead of breaking out of the
 * loop (which cost an AbortError with a stack trace per stream). These pin what the client sees
 * when the upstream does not close right after [DONE], on the translated path and on chat
 * pass-through (the upstream's bytes, [DONE] included, are the client's answer).
 */
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'u-1', object: 'chat.completion.chunk', created: 1, model: 'mock-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstream.answer((request) => ({
    headers: { 'content-type': 'text/event-stream' },
    body: [
      chunk({ role: 'assistant', content: '' }) + chunk({ content: 'hello' }) + chunk({}, 'stop') + 'data: [DONE]\n\n',
      ...(request.headers['x-after-done'] === 'garbage' ? ['data: {not json\n\n'] : []),
    ],
    // The response stays open until the test lets it go.
    hold: true,
  }));
  const url = `${upstream.url}/v1`;
  const timeouts = '{ connect_ms: 1000, first_byte_ms: 2000, idle_ms: 1500, total_ms: 5000 }';
  gateway = await startTestGateway({
    configText: `
providers:
  - { id: mock, type: openai, base_url: ${url}, timeouts: ${timeouts} }
  - { id: through, type: openai, base_url: ${url}, timeouts: ${timeouts}, options: { chat_pass_through: true } }
models:
  - id: test/chat
    endpoints: [{ provider: mock, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
  - id: test/native
    endpoints: [{ provider: through, upstream_model: mock-model, pricing: { prompt: 0.5, completion: 1.5 } }]
`,
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function streamThroughGateway(model: string, afterDone?: string): Promise<string> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${gateway.apiKey}`,
      'content-type': 'application/json',
      ...(afterDone ? { 'x-after-done': afterDone } : {}),
    },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe.each(['test/chat', 'test/native'])('an upstream that keeps the stream open after [DONE] (%s)', (model) => {
  it('still ends the client stream with [DONE] while the upstream is open', async () => {
    upstream.held.length = 0;
    const text = await streamThroughGateway(model);
    expect(text).toContain('"content":"hello"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(upstream.held[0].writableEnded).toBe(false);
    upstream.held[0].end();
  });

  it('ignores what it sends after [DONE], even garbage', async () => {
    upstream.held.length = 0;
    const text = await streamThroughGateway(model, 'garbage');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).not.toContain('event: error');
    upstream.held[0].end();
  });
});
