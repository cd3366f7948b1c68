import { describe, expect, it } from 'vitest';
import { recordedStream } from '../../../test/helpers/chat-replay.js';
import { GatewayError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import { MessagesStreamTranslator, type MessagesEvent } from './messages-stream-translator.js';

/** A recorded chat stream (cut at random byte boundaries when seeded) through the translator. */
function translate(family: string, name: string, seed: number | null = null): MessagesEvent[] {
  const { chunks, usage, error } = recordedStream(family, name, seed);
  const translator = new MessagesStreamTranslator('msg_1', 'public/model');
  const events = [...translator.start(), ...chunks.flatMap((chunk) => translator.push(chunk))];
  return [...events, ...(error ? translator.fail(error) : translator.finish(usage))];
}

/** One line an event, deltas merged, so a snapshot reads as the event sequence a client sees. */
function trace(events: MessagesEvent[]): string[] {
  const lines: string[] = [];
  for (const event of events) {
    const block = event.content_block as { type: string } | undefined;
    const delta = event.delta as { type?: string } | undefined;
    const detail = block?.type ?? (event.type === 'content_block_delta' ? `${delta?.type} …` : '');
    const where = event.index === undefined ? '' : ` #${String(event.index)}`;
    const line = `${event.type}${where}${detail ? ` ${detail}` : ''}`;
    if (lines.at(-1) !== line) lines.push(line);
  }
  return lines;
}

/** What an Anthropic client assembles from the events: each block with its text or parsed input. */
function assemble(events: MessagesEvent[]): unknown[] {
  const blocks: Array<Record<string, unknown>> = [];
  for (const event of events) {
    if (event.type === 'content_block_start')
      blocks[event.index as number] = { ...(event.content_block as object), json: '' };
    if (event.type !== 'content_block_delta') continue;
    const block = blocks[event.index as number]!;
    const delta = event.delta as Record<string, string>;
    if (delta.type === 'text_delta') block.text = `${block.text as string}${delta.text}`;
    if (delta.type === 'thinking_delta') block.thinking = `${block.thinking as string}${delta.thinking}`;
    if (delta.type === 'input_json_delta') block.json = `${block.json as string}${delta.partial_json}`;
  }
  return blocks.map(({ json, ...block }) =>
    block.type === 'tool_use' ? { ...block, input: json === '' ? {} : JSON.parse(json as string) } : block,
  );
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

describe('MessagesStreamTranslator on recorded chat streams', () => {
  it.each(streams)('%s %s: the same events whatever the byte boundaries', (family, name) => {
    const whole = translate(family, name);
    for (const seed of [1, 7, 42]) expect(translate(family, name, seed)).toEqual(whole);
  });

  it('text with usage: message_start, ping, one text block, message_delta with end_turn and usage', () => {
    const events = translate('openai', 'chat.stream.text.include-usage.sse');
    expect(trace(events)).toMatchInlineSnapshot(`
      [
        "message_start",
        "ping",
        "content_block_start #0 text",
        "content_block_delta #0 text_delta …",
        "content_block_stop #0",
        "message_delta",
        "message_stop",
      ]
    `);
    expect(events.slice(-2)).toMatchInlineSnapshot(`
      [
        {
          "delta": {
            "stop_reason": "end_turn",
            "stop_sequence": null,
          },
          "type": "message_delta",
          "usage": {
            "input_tokens": 14,
            "output_tokens": 30,
          },
        },
        {
          "type": "message_stop",
        },
      ]
    `);
  });

  it('parallel tool calls: a tool_use block each, input JSON streamed whole, stop_reason tool_use', () => {
    const events = translate('openai', 'chat.stream.parallel-tool-calls.sse');
    expect(trace(events)).toMatchInlineSnapshot(`
      [
        "message_start",
        "ping",
        "content_block_start #0 tool_use",
        "content_block_delta #0 input_json_delta …",
        "content_block_stop #0",
        "content_block_start #1 tool_use",
        "content_block_delta #1 input_json_delta …",
        "content_block_stop #1",
        "message_delta",
        "message_stop",
      ]
    `);
    expect(assemble(events)).toMatchInlineSnapshot(`
      [
        {
          "id": "call_JMW1whyEaYG438VE1OIflxA2",
          "input": {
            "city": "Edinburgh",
            "country": "GB",
            "units": "c",
          },
          "name": "GetWeatherArgs",
          "type": "tool_use",
        },
        {
          "id": "call_DNYTawLBoN8fj3KN6qU9N1Ou",
          "input": {
            "exchange": "NASDAQ",
            "ticker": "AAPL",
          },
          "name": "get_stock_price",
          "type": "tool_use",
        },
      ]
    `);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('reasoning (DeepSeek reasoning_content) streams as a thinking block, then text', () => {
    const events = translate('deepseek', 'chat.stream.reasoning.sse');
    expect(trace(events)).toMatchInlineSnapshot(`
      [
        "message_start",
        "ping",
        "content_block_start #0 thinking",
        "content_block_delta #0 thinking_delta …",
        "content_block_stop #0",
        "content_block_start #1 text",
        "content_block_delta #1 text_delta …",
        "content_block_stop #1",
        "message_delta",
        "message_stop",
      ]
    `);
    const [thinking, text] = assemble(events) as Array<Record<string, string>>;
    expect(thinking).toMatchObject({ type: 'thinking', signature: '' });
    expect(thinking!.thinking!.length).toBeGreaterThan(0);
    expect(text!.type).toBe('text');
  });

  it('finish_reason length → stop_reason max_tokens', () => {
    const events = translate('openai', 'chat.stream.finish-length.sse');
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'max_tokens' } });
  });

  it('an upstream error mid-stream ends with an Anthropic error event', () => {
    const events = translate('groq', 'chat.stream.mid-stream-error.sse');
    expect(events.at(-1)).toMatchInlineSnapshot(`
      {
        "error": {
          "message": "Test Provider: Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'invalid_param' not allowed]",
          "type": "api_error",
        },
        "type": "error",
      }
    `);
    expect(events.some((event) => event.type === 'message_stop')).toBe(false);
  });
});

describe('MessagesStreamTranslator', () => {
  const chunk = (delta: ChatCompletionChunk['choices'][0]['delta'], finish: string | null = null) =>
    ({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta, finish_reason: finish }],
    }) as ChatCompletionChunk;

  it('usage with cache reads and cost: on message_delta, cached input out of input_tokens', () => {
    const translator = new MessagesStreamTranslator('msg_1', 'm');
    translator.push(chunk({ content: 'Hi' }, 'stop'));
    const delta = translator
      .finish({
        prompt_tokens: 100,
        completion_tokens: 5,
        total_tokens: 105,
        prompt_tokens_details: { cached_tokens: 90 },
        cost: 0.01,
        cost_details: { upstream_inference_cost: 0.01 },
      })
      .find((event) => event.type === 'message_delta');
    expect(delta?.usage).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 90,
      cost: 0.01,
      cost_details: { upstream_inference_cost: 0.01 },
    });
  });

  it('a call without an id gets one; chunks without choices add nothing', () => {
    const translator = new MessagesStreamTranslator('msg_1', 'm');
    expect(translator.push({ ...chunk({}), choices: [] })).toEqual([]);
    const events = translator.push(chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }));
    expect(events[0]).toMatchObject({ content_block: { type: 'tool_use', id: 'toolu_msg_1_0', name: 'f' } });
  });

  it.each([
    [new GatewayError(529, 'overloaded_error', 'upstream_529', 'Overloaded'), 'overloaded_error'],
    [new GatewayError(429, 'rate_limit_error', 'upstream_rate_limited', 'Slow down'), 'rate_limit_error'],
    [new GatewayError(500, 'server_error', 'internal_error', 'The stream failed.'), 'api_error'],
  ])('fail(%s) → error event of type %s', (error, type) => {
    expect(new MessagesStreamTranslator('msg_1', 'm').fail(error)).toEqual([
      { type: 'error', error: { type, message: error.message } },
    ]);
  });
});
