import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import {
  CHAT_PROTOCOL_ROUTES,
  startProtocolFakes,
  threeProtocolConfig,
  type ProtocolFakes,
} from '../helpers/protocol-fakes.js';
import { usageEvents } from '../helpers/usage-events.js';

/**
 * The requests coding agents send were refused with a 400 (issue 26): Claude Code's `system`
 * messages and adaptive thinking, Codex's namespace tools and hosted web_search. Translated onto
 * a model of another protocol, what it can express is mapped and the rest dropped and named.
 */
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

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}`, ...headers },
    body: JSON.stringify(body),
  });
  return { response, body: (await response.json().catch(() => null)) as any };
}

/** What Claude Code sends at its defaults (the parts the gateway used to refuse). */
const claudeCodeRequest = (model: string) => ({
  model,
  max_tokens: 32000,
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'say hello', cache_control: { type: 'ephemeral' } }] },
    { role: 'system', content: 'The user is in /work.' },
    { role: 'user', content: 'go on' },
  ],
  thinking: { type: 'adaptive' },
  output_config: { effort: 'high' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  metadata: { user_id: 'user_abc' },
});

describe('Claude Code on a translated model', () => {
  it('regression: role "system" messages and thinking.type "adaptive" are answered, not a 400', async () => {
    const { response, body } = await post('/v1/messages', claudeCodeRequest('test/openai'), {
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
    });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hello from openai' }] });
    const sent = fakes.requests[0].json;
    expect(sent.messages.map((message: any) => message.role)).toEqual(['system', 'user', 'system', 'user']);
    expect(sent.messages[2].content).toBe('The user is in /work.');
    expect(sent.reasoning_effort).toBe('high');
    expect(sent.context_management).toBeUndefined();
    expect(response.headers.get('x-gateway-dropped-params')).toBe('context_management, cache_control');
  });

  it('an enabled thinking budget becomes a reasoning effort; disabled asks for none', async () => {
    await post('/v1/messages', {
      model: 'test/openai',
      max_tokens: 100,
      thinking: { type: 'enabled', budget_tokens: 16000 },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    await post('/v1/messages', {
      model: 'test/openai',
      max_tokens: 100,
      thinking: { type: 'disabled' },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(fakes.requests.map((request) => request.json.reasoning_effort)).toEqual(['high', undefined]);
  });

  it('strict refusals (x-gateway-unsupported-params: refuse) answer a 400 naming the first dropped field', async () => {
    const { response, body } = await post('/v1/messages', claudeCodeRequest('test/gemini'), {
      'x-gateway-unsupported-params': 'refuse',
    });
    expect(response.status).toBe(400);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/context_management/);
    expect(fakes.requests).toHaveLength(0);
  });

  it('an Anthropic server tool meets a model without search: dropped and named, the request answered', async () => {
    const { response } = await post('/v1/messages', {
      model: 'test/gemini',
      max_tokens: 100,
      tools: [
        { type: 'web_search_20250305', name: 'web_search' },
        { type: 'bash_20250124', name: 'bash' },
      ],
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-dropped-params')).toBe('tools.1:bash_20250124, tools.0:web_search_20250305');
  });
});

/** What Codex CLI sends at its defaults through a custom `wire_api = "responses"` provider. */
const codexRequest = (stream: boolean) => ({
  model: 'test/openai',
  instructions: 'You are Codex.',
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is the weather in Paris?' }] },
  ],
  tools: [
    {
      type: 'namespace',
      name: 'mcp__weather__',
      description: 'Weather MCP server',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'The weather in a city',
          strict: false,
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
    },
    { type: 'web_search', external_web_access: true },
  ],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  reasoning: { effort: 'medium' },
  store: false,
  stream,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: '0199-session',
  client_metadata: { originator: 'codex_cli_rs' },
});

describe('Codex CLI on a translated model', () => {
  it('regression: namespace tools are flattened upstream and the call comes back split into namespace and name', async () => {
    const { response, body } = await post('/v1/responses', codexRequest(false));
    expect(response.status).toBe(200);
    const sent = fakes.requests[0].json;
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(['mcp__weather__get_weather']);
    expect(sent.enable_search).toBeUndefined();
    expect(sent.include).toBeUndefined();
    expect(body.output).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'get_weather', namespace: 'mcp__weather__' }),
    ]);
    expect(response.headers.get('x-gateway-dropped-params')).toBe('include, client_metadata, tools[1]:web_search');
  });

  it('streamed: the function_call items carry the namespace, and the history replays under the flat name', async () => {
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify(codexRequest(true)),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    const added = events.find((event) => event.type === 'response.output_item.added');
    expect(added.item).toMatchObject({ type: 'function_call', name: 'get_weather', namespace: 'mcp__weather__' });
    const done = events.find((event) => event.type === 'response.function_call_arguments.done');
    expect(done).toMatchObject({ name: 'get_weather', namespace: 'mcp__weather__' });

    fakes.requests.length = 0;
    const history = codexRequest(false);
    history.input.push(
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'get_weather',
        namespace: 'mcp__weather__',
        arguments: '{}',
      } as any,
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' } as any,
    );
    const { response: second } = await post('/v1/responses', history);
    expect(second.status).toBe(200);
    const replayed = fakes.requests[0].json.messages.find((message: any) => message.tool_calls);
    expect(replayed.tool_calls[0].function.name).toBe('mcp__weather__get_weather');
  });

  it('is metered once like any request', async () => {
    const before = (await usageEvents(gateway, 0)).length;
    await post('/v1/responses', codexRequest(false));
    const events = await usageEvents(gateway, before + 1);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({ model_id: 'test/openai', status: 200 });
  });

  it('works through the OpenAI SDK', async () => {
    const client = new OpenAI({ apiKey: gateway.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const answer = await client.responses.create(codexRequest(false) as any);
    expect((answer.output[0] as any).namespace).toBe('mcp__weather__');
  });
});
