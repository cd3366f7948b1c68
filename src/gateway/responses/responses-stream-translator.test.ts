import { describe, expect, it } from 'vitest';
import { recordedStream } from '../../../test/helpers/chat-replay.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import type { ResponseMeta } from './chat-to-response.js';
import type { NamespaceMap } from './namespace-tools.js';
import { ResponsesStreamTranslator, type ResponsesEvent } from './responses-stream-translator.js';

function meta(namespaces?: NamespaceMap): ResponseMeta {
  let counter = 0;
  return {
    id: 'resp_1',
    createdAt: 1_700_000_000,
    model: 'public/model',
    request: { model: 'public/model', input: 'Hi', stream: true },
    store: false,
    itemId: (prefix) => `${prefix}${++counter}`,
    ...(namespaces ? { namespaces } : {}),
  };
}

/** A recorded chat stream (cut at random byte boundaries when seeded) through the translator. */
function translate(family: string, name: string, seed: number | null = null, namespaces?: NamespaceMap) {
  const { chunks, usage, error } = recordedStream(family, name, seed);
  const translator = new ResponsesStreamTranslator(meta(namespaces));
  const events = [...translator.start(), ...chunks.flatMap((chunk) => translator.push(chunk))];
  if (error) return { events: [...events, ...translator.fail(error)], response: null };
  const { events: closing, response } = translator.finish(usage);
  return { events: [...events, ...closing], response };
}

/** One line an event, deltas merged, so a snapshot reads as the event sequence a client sees. */
function trace(events: ResponsesEvent[]): string[] {
  const lines: string[] = [];
  for (const event of events) {
    const where = event.output_index === undefined ? '' : ` #${String(event.output_index)}`;
    const line = event.type.endsWith('.delta') ? `${event.type}${where} …` : `${event.type}${where}`;
    if (lines.at(-1) !== line) lines.push(line);
  }
  return lines;
}

const streams: Array<[string, string]> = [
  ['openai', 'chat.stream.text.include-usage.sse'],
  ['openai', 'chat.stream.tool-call.sse'],
  ['openai', 'chat.stream.parallel-tool-calls.sse'],
  ['openai', 'chat.stream.finish-length.sse'],
  ['openai', 'chat.stream.tool-then-text.turn1.sse'],
  ['deepseek', 'chat.stream.reasoning.sse'],
  ['groq', 'chat.stream.mid-stream-error.sse'],
];

describe('ResponsesStreamTranslator on recorded chat streams', () => {
  it.each(streams)('%s %s: the same events whatever the byte boundaries', (family, name) => {
    const whole = translate(family, name);
    for (const seed of [1, 7, 42]) expect(translate(family, name, seed)).toEqual(whole);
  });

  it('text with usage: the documented sequence; deltas add up to the final text; usage on completed', () => {
    const { events, response } = translate('openai', 'chat.stream.text.include-usage.sse');
    expect(trace(events)).toMatchInlineSnapshot(`
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added #0",
        "response.content_part.added #0",
        "response.output_text.delta #0 …",
        "response.output_text.done #0",
        "response.content_part.done #0",
        "response.output_item.done #0",
        "response.completed",
      ]
    `);
    const deltas = events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta);
    expect(response?.output_text).toBe(deltas.join(''));
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed' } });
    expect(response?.usage).toMatchInlineSnapshot(`
      {
        "input_tokens": 14,
        "input_tokens_details": {
          "cache_write_tokens": 0,
          "cached_tokens": 0,
        },
        "output_tokens": 30,
        "output_tokens_details": {
          "reasoning_tokens": 0,
        },
        "total_tokens": 44,
      }
    `);
  });

  it('parallel tool calls: one function_call item each, arguments done with the whole JSON', () => {
    const { events, response } = translate('openai', 'chat.stream.parallel-tool-calls.sse');
    expect(trace(events)).toMatchInlineSnapshot(`
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added #0",
        "response.function_call_arguments.delta #0 …",
        "response.output_item.added #1",
        "response.function_call_arguments.delta #1 …",
        "response.function_call_arguments.done #0",
        "response.output_item.done #0",
        "response.function_call_arguments.done #1",
        "response.output_item.done #1",
        "response.completed",
      ]
    `);
    const done = events.filter((event) => event.type === 'response.function_call_arguments.done');
    expect(done.map((event) => [event.name, JSON.parse(event.arguments as string)])).toMatchInlineSnapshot(`
      [
        [
          "GetWeatherArgs",
          {
            "city": "Edinburgh",
            "country": "GB",
            "units": "c",
          },
        ],
        [
          "get_stock_price",
          {
            "exchange": "NASDAQ",
            "ticker": "AAPL",
          },
        ],
      ]
    `);
    expect(response?.output.map((item) => item.type === 'function_call' && item.status)).toEqual([
      'completed',
      'completed',
    ]);
  });

  it('reasoning (DeepSeek reasoning_content) streams as a reasoning item before the message', () => {
    const { events, response } = translate('deepseek', 'chat.stream.reasoning.sse');
    expect(trace(events)).toMatchInlineSnapshot(`
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added #0",
        "response.content_part.added #0",
        "response.reasoning_text.delta #0 …",
        "response.reasoning_text.done #0",
        "response.content_part.done #0",
        "response.output_item.done #0",
        "response.output_item.added #1",
        "response.content_part.added #1",
        "response.output_text.delta #1 …",
        "response.output_text.done #1",
        "response.content_part.done #1",
        "response.output_item.done #1",
        "response.completed",
      ]
    `);
    const reasoning = response?.output[0] as { type: string; content: Array<{ text: string }> };
    const deltas = events.filter((event) => event.type === 'response.reasoning_text.delta').map((event) => event.delta);
    expect(reasoning.content[0]!.text).toBe(deltas.join(''));
    expect(response?.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('finish_reason length ends with response.incomplete (max_output_tokens)', () => {
    const { events, response } = translate('openai', 'chat.stream.finish-length.sse');
    expect(events.at(-1)?.type).toBe('response.incomplete');
    expect(response?.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('an upstream error mid-stream: the error event, then response.failed with the output so far', () => {
    const { events } = translate('groq', 'chat.stream.mid-stream-error.sse');
    expect(events.at(-2)).toMatchInlineSnapshot(`
      {
        "code": "tool_use_failed",
        "message": "Test Provider: Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'invalid_param' not allowed]",
        "param": null,
        "type": "error",
      }
    `);
    const failed = events.at(-1) as { type: string; response: { status: string; output: unknown[]; error: unknown } };
    expect(failed.type).toBe('response.failed');
    expect(failed.response.status).toBe('failed');
    expect(failed.response.output.length).toBeGreaterThan(0);
  });
});

describe('ResponsesStreamTranslator', () => {
  const chunk = (delta: ChatCompletionChunk['choices'][0]['delta'], finish: string | null = null) =>
    ({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    }) as ChatCompletionChunk;

  it('a streamed call of a flattened namespace tool is given back split, on added and on done', () => {
    const namespaces: NamespaceMap = new Map([
      ['multi_agent_v1__spawn_agent', { namespace: 'multi_agent_v1', name: 'spawn_agent' }],
    ]);
    const translator = new ResponsesStreamTranslator(meta(namespaces));
    const events = [
      ...translator.push(
        chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'multi_agent_v1__spawn_agent' } }] }),
      ),
      ...translator.push(chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, 'tool_calls')),
      ...translator.finish(null).events,
    ];
    expect(events.find((event) => event.type === 'response.output_item.added')?.item).toMatchObject({
      namespace: 'multi_agent_v1',
      name: 'spawn_agent',
    });
    expect(events.find((event) => event.type === 'response.function_call_arguments.done')).toMatchObject({
      namespace: 'multi_agent_v1',
      name: 'spawn_agent',
      arguments: '{}',
    });
  });

  it('chunks without choices (usage-only) and empty deltas add no events', () => {
    const translator = new ResponsesStreamTranslator(meta());
    expect(translator.push({ ...chunk({}), choices: [] })).toEqual([]);
    expect(translator.push(chunk({ content: '' }))).toEqual([]);
  });
});
