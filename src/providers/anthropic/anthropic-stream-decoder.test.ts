import { describe, expect, it } from 'vitest';
import { splitRandomly } from '../../../test/helpers/byte-pieces.js';
import { aggregate, runDecoder } from '../../../test/helpers/decoder-replay.js';
import { fixtureBytes, listFixtures, reframeAnthropicJsonl } from '../../../test/helpers/fixtures.js';
import { testContext } from '../../../test/helpers/translation-context.js';
import { GatewayError } from '../../shared/errors.js';
import { AnthropicStreamDecoder } from './anthropic-stream-decoder.js';

/** The fixture as Anthropic sends it: .sse byte for byte, .chunks.jsonl re-framed with event: lines. */
function anthropicBytes(name: string): Buffer {
  const raw = fixtureBytes('anthropic', name);
  return name.endsWith('.jsonl') ? reframeAnthropicJsonl(raw.toString('utf8')) : raw;
}

const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
});

const EXPECTED: Record<
  string,
  {
    content: string | RegExp;
    reasoning?: RegExp;
    toolCalls: Array<{ id: string; name: string; arguments: string }>;
    finish: string;
    usage: object;
  }
> = {
  'messages.stream.text.sse': { content: 'Hello there!', toolCalls: [], finish: 'stop', usage: usage(11, 6) },
  'messages.stream.text-short.sse': { content: '2', toolCalls: [], finish: 'stop', usage: usage(20, 5) },
  'messages.stream.text-then-tool-use.sse': {
    content: "I'll check the current weather in Paris for you.",
    toolCalls: [{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', arguments: '{"location": "Paris"}' }],
    finish: 'tool_calls',
    usage: usage(377, 65),
  },
  'messages.stream.thinking.sse': {
    content: /^Here are the basic steps for safely crossing the street:.*when crossing streets\.$/s,
    reasoning: /^This is a straightforward question about pedestrian safety\./,
    toolCalls: [],
    finish: 'stop',
    usage: usage(43, 282),
  },
  'messages.stream.max-tokens-incomplete-tool-input.sse': {
    content: /^I'll create a comprehensive tax guide.*Let me do that for you now\.$/,
    // Cut by max_tokens: the arguments are passed on as far as they came, and the finish says why.
    toolCalls: [
      {
        id: 'toolu_01EKqbqmZrGRXy18eN7m9kvY',
        name: 'make_file',
        arguments:
          '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes',
      },
    ],
    finish: 'length',
    usage: usage(450, 124),
  },
  'messages.stream.message-delta-input-tokens.chunks.jsonl': {
    content: 'pong',
    toolCalls: [],
    finish: 'stop',
    usage: usage(61, 2),
  },
  'messages.stream.text-and-tool-use.chunks.jsonl': {
    content: "I'll update the issue list for you.",
    toolCalls: [{ id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', arguments: '{}' }],
    finish: 'tool_calls',
    usage: usage(565, 48),
  },
};

describe('AnthropicStreamDecoder replaying the recorded streams', () => {
  it('has an expectation for every Anthropic stream fixture', () => {
    const streams = listFixtures('anthropic').filter(
      (name) => (name.endsWith('.sse') || name.endsWith('.chunks.jsonl')) && !name.startsWith('error.'),
    );
    expect(streams.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s, whole and in random byte pieces', (name, expected) => {
    const bytes = anthropicBytes(name);
    const whole = runDecoder(new AnthropicStreamDecoder(testContext()), [bytes]);
    for (const seed of [1, 2, 3, 42]) {
      expect(runDecoder(new AnthropicStreamDecoder(testContext()), splitRandomly(bytes, seed))).toEqual(whole);
    }
    const result = aggregate(whole);
    if (typeof expected.content === 'string') expect(result.content).toBe(expected.content);
    else expect(result.content).toMatch(expected.content);
    if (expected.reasoning) expect(result.reasoning).toMatch(expected.reasoning);
    else expect(result.reasoning).toBe('');
    expect(result.toolCalls).toEqual(expected.toolCalls);
    expect(result.finishReasons).toEqual([expected.finish]);
    expect(result.usage).toEqual(expected.usage);
    expect(result.roles).toEqual(['assistant']);
    expect(result.done).toBe(true);
    expect(whole.at(-1)).toEqual({ type: 'done' });
    for (const event of whole) {
      if (event.type === 'chunk')
        expect(event.chunk).toMatchObject({
          id: 'chatcmpl-test',
          object: 'chat.completion.chunk',
          model: 'public/model',
        });
    }
  });

  it('streams the first tool-call delta with id, type and name, then argument fragments by index only', () => {
    const events = runDecoder(new AnthropicStreamDecoder(testContext()), [
      anthropicBytes('messages.stream.text-then-tool-use.sse'),
    ]);
    const toolDeltas = events.flatMap((event) =>
      event.type === 'chunk' ? (event.chunk.choices[0].delta.tool_calls ?? []) : [],
    );
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(toolDeltas.slice(1)).toEqual(
      ['{"locati', 'on": "P', 'ar', 'is"}'].map((fragment) => ({ index: 0, function: { arguments: fragment } })),
    );
  });

  it('the documented mid-stream overloaded_error fails the stream as a 503', () => {
    const decoder = new AnthropicStreamDecoder(testContext());
    const start = anthropicBytes('messages.stream.text.sse').toString().split('event: content_block_stop')[0];
    const events = decoder.push(Buffer.from(start));
    expect(aggregate(events).content).toBe('Hello there!');
    expect(() => decoder.push(fixtureBytes('anthropic', 'error.stream.overloaded_error.docs-example.sse'))).toThrow(
      expect.objectContaining({ status: 503, code: 'overloaded_error', message: 'Test Provider: Overloaded' }),
    );
  });

  it('streams a JSON-answer tool as content and finishes with stop', () => {
    const jsonl = [
      '{"type":"message_start","message":{"usage":{"input_tokens":9,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"json_response","input":{}}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}',
      '{"type":"content_block_stop","index":0}',
      '{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}',
      '{"type":"message_stop"}',
    ].join('\n');
    const result = aggregate(
      runDecoder(new AnthropicStreamDecoder(testContext(), 'json_response'), [reframeAnthropicJsonl(jsonl)]),
    );
    expect(result).toMatchObject({ content: '{"a":1}', toolCalls: [], finishReasons: ['stop'], done: true });
  });

  it('keeps web search blocks inside and counts the searches', () => {
    const jsonl = [
      '{"type":"message_start","message":{"usage":{"input_tokens":9,"output_tokens":1}}}',
      '{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"s1","name":"web_search","input":{}}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"query\\":\\"x\\"}"}}',
      '{"type":"content_block_stop","index":0}',
      '{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"s1","content":[]}}',
      '{"type":"content_block_stop","index":1}',
      '{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}',
      '{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Found it."}}',
      '{"type":"content_block_stop","index":2}',
      '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5,"server_tool_use":{"web_search_requests":1}}}',
      '{"type":"message_stop"}',
    ].join('\n');
    const result = aggregate(runDecoder(new AnthropicStreamDecoder(testContext()), [reframeAnthropicJsonl(jsonl)]));
    expect(result).toMatchObject({ content: 'Found it.', toolCalls: [], finishReasons: ['stop'] });
    expect(result.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 5, web_search_requests: 1 });
  });

  it.each([
    ['cut inside an event', (text: string) => text.slice(0, text.indexOf('"text":" there"') + 5)],
    [
      'with bad JSON in an event',
      (text: string) =>
        text.replace(
          '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}',
          '{"type":"content_block_delta",',
        ),
    ],
  ])('a stream %s ends in one clean 502', (_name, mangle) => {
    const bytes = Buffer.from(mangle(anthropicBytes('messages.stream.text.sse').toString()));
    const decoder = new AnthropicStreamDecoder(testContext());
    let error: unknown;
    try {
      for (const piece of splitRandomly(bytes, 7)) decoder.push(piece);
      decoder.end();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(502);
    expect((error as GatewayError).code).toBe('upstream_bad_response');
  });

  it('a stream cut between events emits no finish and no done (the core reports the interruption)', () => {
    const text = anthropicBytes('messages.stream.text.sse').toString();
    const events = runDecoder(new AnthropicStreamDecoder(testContext()), [
      Buffer.from(text.slice(0, text.indexOf('event: message_delta'))),
    ]);
    const result = aggregate(events);
    expect(result.content).toBe('Hello there!');
    expect(result.finishReasons).toEqual([]);
    expect(result.done).toBe(false);
  });
});
