import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import {
  CHAT_PROTOCOL_ROUTES,
  startProtocolFakes,
  threeProtocolConfig,
  type ProtocolFakes,
} from '../helpers/protocol-fakes.js';
import { fixtureJson, fixtureText, listFixtures } from '../helpers/fixtures.js';
import { anthropicErrors, anthropicStreamFaults } from '../helpers/anthropic-conformance.js';
import { geminiErrors, geminiStreamFaults } from '../helpers/gemini-conformance.js';

/**
 * Like chat-conformance.test.ts for OpenAI's document: the answers of /v1/messages and /v1beta
 * validate against Anthropic's and Gemini's answer shapes (test/helpers/*-conformance.ts),
 * native (the endpoint speaks the API) and translated (another protocol answers), whole and
 * streamed, with and without tools, and the error envelopes. The schemas are first held against
 * the recorded wire, so a schema stricter than the real API would fail here, not pass a test.
 */
describe('the declared schemas accept the recorded wire', () => {
  it.each(listFixtures('anthropic'))('anthropic/%s', (name) => {
    if (name.endsWith('.response.json')) expect(anthropicErrors('message', fixtureJson('anthropic', name))).toBeNull();
    else if (name.startsWith('error.') && name.endsWith('.json'))
      expect(anthropicErrors('error', fixtureJson('anthropic', name))).toBeNull();
    else if (name.endsWith('.sse') && name.startsWith('error.'))
      // A documented error event alone (what a stream that fails at once sends).
      expect(
        anthropicErrors('event', JSON.parse(/^data: (.*)$/m.exec(fixtureText('anthropic', name))![1]!)),
      ).toBeNull();
    else if (name.endsWith('.sse')) expect(anthropicStreamFaults(fixtureText('anthropic', name))).toEqual([]);
    else if (name.endsWith('.chunks.jsonl'))
      for (const line of fixtureText('anthropic', name).split('\n').filter(Boolean))
        expect(anthropicErrors('event', JSON.parse(line))).toBeNull();
  });

  it.each(listFixtures('gemini'))('gemini/%s', (name) => {
    if (name.endsWith('.response.json')) expect(geminiErrors('response', fixtureJson('gemini', name))).toBeNull();
    else if (name.startsWith('error.')) expect(geminiErrors('error', fixtureJson('gemini', name))).toBeNull();
    else if (name.endsWith('.sse')) expect(geminiStreamFaults(fixtureText('gemini', name))).toEqual([]);
    else if (name.endsWith('.response.chunks.jsonl') || (name.endsWith('.chunks.jsonl') && !name.startsWith('vertex')))
      for (const line of fixtureText('gemini', name).split('\n').filter(Boolean))
        expect(geminiErrors('response', JSON.parse(line))).toBeNull();
  });

  it('and refuse what the APIs never send', () => {
    expect(anthropicErrors('message', { type: 'message', role: 'assistant', content: [] })).toMatch(/required/);
    expect(anthropicStreamFaults('event: ping\ndata: {"type":"ping"}\n\n')).not.toEqual([]);
    expect(geminiErrors('response', { candidates: [{ finishReason: 'stop' }] })).toMatch(/allowed values/);
    expect(
      geminiErrors('response', { candidates: [{ content: { parts: [{ text: 'a', functionCall: { name: 'f' } }] } }] }),
    ).not.toBeNull();
  });
});

let fakes: ProtocolFakes;
let gateway: TestGateway;

beforeAll(async () => {
  fakes = await startProtocolFakes(CHAT_PROTOCOL_ROUTES);
  gateway = await startTestGateway({ configText: threeProtocolConfig(fakes.url) });
});
afterAll(async () => {
  await gateway?.close();
  await fakes?.close();
});

const post = (path: string, body: unknown) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': gateway.apiKey, 'x-goog-api-key': gateway.apiKey },
    body: JSON.stringify(body),
  });

const MODELS = [
  ['test/claude', 'native on Anthropic'],
  ['test/openai', 'translated from OpenAI'],
  ['test/gemini', 'translated from Gemini'],
] as const;

describe.each(MODELS)('/v1/messages on %s (%s)', (model) => {
  const weather = { name: 'weather', description: 'The weather', input_schema: { type: 'object', properties: {} } };
  const body = { model, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] };

  it.each([
    ['text', body],
    ['a tool call', { ...body, tools: [weather] }],
  ])('a whole answer with %s conforms', async (_name, request) => {
    const response = await post('/v1/messages', request);
    expect(response.status).toBe(200);
    expect(anthropicErrors('message', await response.json())).toBeNull();
  });

  it.each([
    ['text', body],
    ['a tool call', { ...body, tools: [weather] }],
  ])('a stream with %s conforms, event by event and in order', async (_name, request) => {
    const response = await post('/v1/messages', { ...request, stream: true });
    expect(response.status).toBe(200);
    expect(anthropicStreamFaults(await response.text())).toEqual([]);
  });
});

describe.each([
  ['test/gemini', 'native on Gemini'],
  ['test/openai', 'translated from OpenAI'],
  ['test/claude', 'translated from Anthropic'],
])('/v1beta on %s (%s)', (model) => {
  const hello = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
  const withTool = {
    ...hello,
    tools: [{ functionDeclarations: [{ name: 'weather', parameters: { type: 'OBJECT', properties: {} } }] }],
  };

  it.each([
    ['text', hello],
    ['a function call', withTool],
  ])('generateContent with %s conforms', async (_name, request) => {
    const response = await post(`/v1beta/models/${model}:generateContent`, request);
    expect(response.status).toBe(200);
    expect(geminiErrors('response', await response.json())).toBeNull();
  });

  it.each([
    ['text', hello],
    ['a function call', withTool],
  ])(
    'streamGenerateContent?alt=sse with %s conforms, chunk by chunk (regression: translated streams ended with a usage chunk without a finish reason)',
    async (_name, request) => {
      const response = await post(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, request);
      expect(response.status).toBe(200);
      expect(geminiStreamFaults(await response.text())).toEqual([]);
    },
  );
});

describe('errors come in each API’s envelope', () => {
  it('Messages: an unknown model and a bad body', async () => {
    const unknown = await post('/v1/messages', {
      model: 'test/nope',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(unknown.status).toBe(404);
    expect(anthropicErrors('error', await unknown.json())).toBeNull();
    const bad = await post('/v1/messages', { model: 'test/claude', messages: 'hi' });
    expect(bad.status).toBe(400);
    expect(anthropicErrors('error', await bad.json())).toBeNull();
  });

  it('Gemini: an unknown model, and (regression: was a 500) contents that is not an array', async () => {
    const unknown = await post('/v1beta/models/test/nope:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    });
    expect(unknown.status).toBe(404);
    expect(geminiErrors('error', await unknown.json())).toBeNull();
    const bad = await post('/v1beta/models/test/gemini:generateContent', { contents: 'hi' });
    expect(bad.status).toBe(400);
    expect(geminiErrors('error', await bad.json())).toBeNull();
  });
});
