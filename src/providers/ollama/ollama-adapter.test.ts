import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import { GatewayError, InvalidRequestError } from '../../shared/errors.js';
import type { ChatCompletionChunk, ChatCompletionRequest } from '../../shared/openai-types.js';
import type { StreamEvent } from '../provider-adapter.js';
import { convertToOllamaRequest } from './convert-to-ollama-request.js';
import { ollamaAdapter } from './ollama-adapter.js';
import { OllamaStreamDecoder } from './ollama-stream-decoder.js';

const context = () =>
  testTranslationContext(
    { type: 'ollama', name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
    { upstreamModel: 'llama3.2' },
  );

describe('convertToOllamaRequest', () => {
  it('maps messages, tools, sampling options and JSON mode', () => {
    const { body, warnings } = convertToOllamaRequest(
      {
        model: 'x',
        messages: [
          { role: 'developer', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '22C' },
        ],
        temperature: 0.2,
        max_tokens: 64,
        stop: 'END',
        seed: 1,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        response_format: { type: 'json_object' },
        stream: true,
      },
      'llama3.2',
    );
    expect(body).toEqual({
      model: 'llama3.2',
      stream: true,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is this?', images: ['AAAA'] },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Tokyo' } } }],
        },
        { role: 'tool', content: '22C', tool_name: 'get_weather' },
      ],
      options: { temperature: 0.2, seed: 1, num_predict: 64, stop: ['END'] },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      format: 'json',
    });
    expect(warnings).toEqual([]);
  });

  it.each([
    [
      'json_schema',
      {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'a', schema: { type: 'object', properties: {} } },
        },
      },
      { format: { type: 'object', properties: {} } },
    ],
    ['reasoning_effort', { reasoning_effort: 'high' }, { think: true }],
    ['reasoning_effort none', { reasoning_effort: 'none' }, { think: false }],
  ])('%s', (_name, extra, expected) => {
    expect(
      convertToOllamaRequest(
        { model: 'x', messages: [{ role: 'user', content: 'hi' }], ...extra } as ChatCompletionRequest,
        'm',
      ).body,
    ).toMatchObject(expected);
  });

  it('warns about what it drops and refuses remote images', () => {
    expect(
      convertToOllamaRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }], logprobs: true }, 'm').warnings,
    ).toEqual(['logprobs is not supported by Ollama and was ignored']);
    expect(() =>
      convertToOllamaRequest(
        {
          model: 'x',
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] }],
        },
        'm',
      ),
    ).toThrow(InvalidRequestError);
  });

  it('builds /api/chat from a base URL with or without /v1', async () => {
    const request = await ollamaAdapter.buildRequest(
      { model: 'x', messages: [{ role: 'user', content: 'hi' }] },
      context(),
    );
    expect(request.url).toBe('http://127.0.0.1:11434/api/chat');
  });
});

function decode(bytes: Uint8Array): StreamEvent[] {
  const decoder = new OllamaStreamDecoder(context());
  const events: StreamEvent[] = [];
  for (let offset = 0; offset < bytes.length; offset += 5)
    events.push(...decoder.push(bytes.subarray(offset, offset + 5)));
  return [...events, ...decoder.end()];
}

const chunks = (events: StreamEvent[]) =>
  events
    .filter((event): event is { type: 'chunk'; chunk: ChatCompletionChunk } => event.type === 'chunk')
    .map((event) => event.chunk.choices[0]!);

describe('Ollama answers', () => {
  it('stream: content, finish and counts from the done line', () => {
    const events = decode(fixtureBytes('ollama', 'api-chat.stream.docs-example.ndjson'));
    expect(chunks(events).map((choice) => [choice.delta, choice.finish_reason])).toEqual([
      [{ role: 'assistant', content: 'The' }, null],
      [{}, 'stop'],
    ]);
    expect(events.filter((event) => event.type === 'usage')).toEqual([
      { type: 'usage', usage: { prompt_tokens: 26, completion_tokens: 282, total_tokens: 308 } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done' });
  });

  it('stream: a whole tool call gets an id, an index and JSON arguments; finish is tool_calls', () => {
    const choices = chunks(decode(fixtureBytes('ollama', 'api-chat.stream.tool-call.docs-example.ndjson')));
    expect(choices[0]!.delta.tool_calls).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } },
    ]);
    expect(choices.at(-1)!.finish_reason).toBe('tool_calls');
  });

  it('stream: an error line after text is a GatewayError', () => {
    expect(() => decode(fixtureBytes('ollama', 'api-generate.stream.mid-stream-error.docs-example.ndjson'))).toThrow(
      /an error was encountered while running the model/,
    );
  });

  it('generate-shaped lines read as text', () => {
    const text = chunks(decode(fixtureBytes('ollama', 'api-generate.stream.docs-example.ndjson')))
      .map((choice) => choice.delta.content ?? '')
      .join('');
    expect(text).toBe("That's a fantastic question!");
  });

  it('non-stream tool call', () => {
    const completion = ollamaAdapter.parseResponse(
      fixtureBytes('ollama', 'api-chat.nonstream.tool-call.docs-example.json'),
      context(),
    );
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } }] },
    });
    expect(completion.usage).toEqual({ prompt_tokens: 169, completion_tokens: 18, total_tokens: 187 });
  });

  it('the documented error body maps to our envelope', () => {
    const error = ollamaAdapter.mapError(500, fixtureBytes('ollama', 'error.docs-example.json'), {}, context());
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.status).toBe(502);
    expect(error.message).toBe('Ollama: the model failed to generate a response');
  });
});
