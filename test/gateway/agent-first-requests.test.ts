import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import {
  CHAT_PROTOCOL_ROUTES,
  startProtocolFakes,
  threeProtocolConfig,
  type ProtocolFakes,
} from '../helpers/protocol-fakes.js';

/**
 * The first requests Claude Code 2.1.197, Codex CLI 0.169.0 and Gemini CLI 0.61.0 really sent
 * (test/fixtures/agents, SOURCES.md), replayed on a model of each protocol family: native where
 * the endpoint speaks the agent's API, translated elsewhere. Each was refused or 404 before issue 26.
 */
interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}
const recorded = (name: string): Recorded =>
  JSON.parse(readFileSync(new URL(`../fixtures/agents/${name}`, import.meta.url), 'utf8'));

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
beforeEach(() => {
  fakes.requests.length = 0;
});

/** Sends a recorded request with the gateway's key and the given model (in the body or the URL). */
async function replay(request: Recorded, model: string, url = request.url) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of ['anthropic-version', 'anthropic-beta', 'accept'])
    if (request.headers[name]) headers[name] = request.headers[name];
  if (request.headers['x-goog-api-key']) headers['x-goog-api-key'] = gateway.apiKey;
  else headers.authorization = `Bearer ${gateway.apiKey}`;
  const body = request.body.model ? { ...request.body, model } : request.body;
  const response = await fetch(`${gateway.url}${url}`, { method: request.method, headers, body: JSON.stringify(body) });
  return { response, text: await response.text() };
}

const MODELS = ['test/claude', 'test/openai', 'test/gemini'] as const;

describe.each(MODELS)('on %s', (model) => {
  it('Claude Code: its first Messages request streams an answer to the end', async () => {
    const { response, text } = await replay(recorded('claude-code-2.1.197.first-request.json'), model);
    expect(response.status).toBe(200);
    expect(text).toContain('event: message_start');
    expect(text).toContain('event: message_stop');
    expect(text).not.toContain('event: error');
  });

  it('Codex CLI: its first Responses request streams to response.completed', async () => {
    const { response, text } = await replay(recorded('codex-0.169.0.first-request.json'), model);
    expect(response.status).toBe(200);
    expect(text).toContain('event: response.completed');
    expect(text).not.toContain('event: error');
    // Its namespace tools reach the model flat; web_search, with no model to search, is named.
    const sent = JSON.stringify(fakes.requests[0].json);
    expect(sent).toContain('multi_agent_v1__');
    expect(response.headers.get('x-gateway-dropped-params')).toContain('web_search');
  });

  it('Gemini CLI: its streamGenerateContent request answers SSE chunks to a finishReason', async () => {
    const request = recorded('gemini-cli-0.61.0.first-request.json');
    const url = request.url.replace('gemini-3.1-pro-preview', model);
    const { response, text } = await replay(request, model, url);
    expect(response.status).toBe(200);
    const chunks = text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    expect(chunks.some((chunk) => chunk.candidates?.[0]?.finishReason)).toBe(true);
    expect(chunks.some((chunk) => chunk.error)).toBe(false);
  });
});

it("Claude Code's request reaches an Anthropic endpoint unchanged but for the model", async () => {
  const request = recorded('claude-code-2.1.197.first-request.json');
  await replay(request, 'test/claude');
  expect(fakes.requests[0].json).toEqual({ ...request.body, model: 'claude-fake' });
  expect(fakes.requests[0].headers['anthropic-beta']).toBe(request.headers['anthropic-beta']);
});
