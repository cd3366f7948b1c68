import { describe, expect, it } from 'vitest';
import {
  bedrockEventFrame,
  bedrockExceptionFrame,
  encodeEventStreamMessage,
} from '../../../test/helpers/aws-event-stream-encoder.js';
import { fixtureBytes, fixtureText, reframeBedrockChunks } from '../../../test/helpers/fixtures.js';
import { testTranslationContext } from '../../../test/helpers/translation-context.js';
import { GatewayError } from '../../shared/errors.js';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import type { StreamEvent } from '../provider-adapter.js';
import { BedrockStreamDecoder } from './bedrock-stream-decoder.js';
import { JSON_MODE_TOOL_NAME } from './convert-to-bedrock-request.js';

const context = testTranslationContext({ type: 'bedrock', name: 'Bedrock' }, { stream: true });

function decodeAll(bytes: Uint8Array, pieceSize = bytes.length): StreamEvent[] {
  const decoder = new BedrockStreamDecoder(context);
  const events: StreamEvent[] = [];
  for (let offset = 0; offset < bytes.length; offset += pieceSize)
    events.push(...decoder.push(bytes.subarray(offset, offset + pieceSize)));
  events.push(...decoder.end());
  return events;
}

function summarize(events: StreamEvent[]) {
  const chunks = events
    .filter((event): event is { type: 'chunk'; chunk: ChatCompletionChunk } => event.type === 'chunk')
    .map((event) => event.chunk);
  const deltas = chunks.map((chunk) => chunk.choices[0]!.delta);
  return {
    chunks,
    content: deltas.map((delta) => delta.content ?? '').join(''),
    reasoning: deltas.map((delta) => delta.reasoning ?? '').join(''),
    toolCalls: deltas.flatMap((delta) => delta.tool_calls ?? []),
    finishReasons: chunks.map((chunk) => chunk.choices[0]!.finish_reason).filter(Boolean),
    usage: events.filter((event) => event.type === 'usage').map((event) => (event as { usage: unknown }).usage),
    done: events.filter((event) => event.type === 'done').length,
  };
}

function expectError(run: () => unknown, status: number, code: string | RegExp): void {
  try {
    run();
    expect.unreachable();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(status);
    expect((error as GatewayError).code).toMatch(code);
  }
}

describe('BedrockStreamDecoder on recorded streams', () => {
  it('text: every delta, stop, usage from metadata, done', () => {
    const result = summarize(decodeAll(fixtureBytes('bedrock', 'converse-stream.text.eventstream'), 7));
    expect(result.chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(result.content).toMatch(/^The capital of France is Paris\. Paris is not only the capital city but also/);
    expect(result.content.endsWith('"The City of Love."')).toBe(true);
    expect(result.finishReasons).toEqual(['stop']);
    expect(result.usage).toEqual([{ prompt_tokens: 13, completion_tokens: 82, total_tokens: 95 }]);
    expect(result.done).toBe(1);
    expect(result.chunks.every((chunk) => chunk.id === 'chatcmpl-test' && chunk.model === 'test/model')).toBe(true);
  });

  it('tool use: the text block, then one tool call with its id, name and arguments', () => {
    const result = summarize(decodeAll(fixtureBytes('bedrock', 'converse-stream.tool-use.eventstream')));
    expect(result.content).toMatch(/^<thinking> To find the temperature/);
    expect(result.toolCalls).toEqual([
      {
        index: 0,
        id: 'tooluse_lAG_zP8QRHmSYOwZzzaCqA',
        type: 'function',
        function: { name: 'get_temperature', arguments: '' },
      },
      { index: 0, function: { arguments: '{"city":"Paris"}' } },
    ]);
    expect(result.finishReasons).toEqual(['tool_calls']);
    expect(result.usage).toEqual([{ prompt_tokens: 471, completion_tokens: 91, total_tokens: 562 }]);
  });

  it('reasoning: reasoningContent text becomes `reasoning`, the signature is dropped, then the answer', () => {
    const result = summarize(decodeAll(fixtureBytes('bedrock', 'converse-stream.reasoning.eventstream'), 1));
    expect(result.reasoning).toMatch(/^The user has greeted me with a simple "Hello"\./);
    expect(result.reasoning).not.toMatch(/Eu0CCkgIBxABGAIq/);
    expect(result.content.length).toBeGreaterThan(0);
    expect(result.usage).toEqual([{ prompt_tokens: 36, completion_tokens: 73, total_tokens: 109 }]);
  });

  it('the SDK-shaped text chunks, re-framed, decode the same way', () => {
    const result = summarize(
      decodeAll(reframeBedrockChunks(fixtureText('bedrock', 'converse-stream.text.chunks.jsonl'))),
    );
    expect(result.content).toBe(
      'Let me count the "r"s in "strawberry":\n\ns-t-**r**-a-w-b-e-**r**-**r**-y\n\nThere are **3** r\'s in "strawberry."',
    );
    expect(result.usage).toEqual([{ prompt_tokens: 22, completion_tokens: 55, total_tokens: 77 }]);
  });
});

describe('BedrockStreamDecoder failures', () => {
  it('an exception frame mid-stream is an error in our envelope', () => {
    const bytes = Buffer.concat([
      bedrockEventFrame('messageStart', { role: 'assistant' }),
      bedrockEventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
      bedrockExceptionFrame('throttlingException', 'Too many tokens, please wait.'),
    ]);
    const decoder = new BedrockStreamDecoder(context);
    // The text before the exception goes out first; the error follows on the next call.
    const events = decoder.push(bytes);
    expect(summarize(events).content).toBe('Hi');
    expectError(() => decoder.end(), 429, 'throttling_exception');
    expectError(() => decoder.push(new Uint8Array(0)), 429, 'throttling_exception');
  });

  it.each([
    ['modelStreamErrorException', 502, 'model_stream_error_exception'],
    ['serviceUnavailableException', 503, 'service_unavailable_exception'],
    ['validationException', 400, 'validation_exception'],
  ])('%s → %i', (type, status, code) => {
    expectError(() => new BedrockStreamDecoder(context).push(bedrockExceptionFrame(type, 'boom')), status, code);
  });

  it('a corrupted CRC is a 502 naming the broken stream', () => {
    const bytes = fixtureBytes('bedrock', 'converse-stream.text.eventstream').slice();
    bytes[200] ^= 0x20;
    expectError(() => decodeAll(bytes), 502, 'upstream_bad_response');
  });

  it('a stream cut inside a frame is a 502 at end()', () => {
    const bytes = fixtureBytes('bedrock', 'converse-stream.text.eventstream');
    const decoder = new BedrockStreamDecoder(context);
    decoder.push(bytes.subarray(0, 1000));
    expectError(() => decoder.end(), 502, 'upstream_bad_response');
  });

  it('a frame whose payload is not JSON is a 502', () => {
    const frame = encodeEventStreamMessage(
      { ':event-type': 'contentBlockDelta', ':message-type': 'event' },
      '{"delta":',
    );
    expectError(() => new BedrockStreamDecoder(context).push(frame), 502, 'upstream_bad_response');
  });

  it('streams the forced JSON tool input as content', () => {
    const bytes = Buffer.concat([
      bedrockEventFrame('messageStart', { role: 'assistant' }),
      bedrockEventFrame('contentBlockStart', {
        contentBlockIndex: 0,
        start: { toolUse: { toolUseId: 't', name: JSON_MODE_TOOL_NAME } },
      }),
      bedrockEventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"a":' } } }),
      bedrockEventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '1}' } } }),
      bedrockEventFrame('contentBlockStop', { contentBlockIndex: 0 }),
      bedrockEventFrame('messageStop', { stopReason: 'tool_use' }),
      bedrockEventFrame('metadata', { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }),
    ]);
    const result = summarize(decodeAll(bytes));
    expect(result.content).toBe('{"a":1}');
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReasons).toEqual(['stop']);
  });
});
