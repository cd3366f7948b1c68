import { describe, expect, it } from 'vitest';
import { splitRandomly } from '../../../test/helpers/byte-pieces.js';
import { aggregate, runDecoder } from '../../../test/helpers/decoder-replay.js';
import { fixtureBytes, listFixtures, reframeGeminiJsonl } from '../../../test/helpers/fixtures.js';
import { testContext } from '../../../test/helpers/translation-context.js';
import { GatewayError } from '../../shared/errors.js';
import { GeminiStreamDecoder } from './gemini-stream-decoder.js';
import { decodeGeminiToolCallId } from './gemini-tool-call-id.js';

/** The fixture as Gemini sends it: .sse byte for byte (CRLF), .chunks.jsonl re-framed as `data: …\r\n\r\n`. */
function geminiBytes(name: string): Buffer {
  const raw = fixtureBytes('gemini', name);
  return name.endsWith('.jsonl') ? reframeGeminiJsonl(raw.toString('utf8')) : raw;
}

const usage = (prompt: number, completion: number, reasoning = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: reasoning },
});

const EXPECTED: Record<
  string,
  {
    content: string | RegExp;
    toolCalls: Array<{ name: string; arguments: string; signed?: boolean }>;
    finish: string;
    usage: object | undefined;
  }
> = {
  'streamGenerateContent.sse.text.sse': {
    content: 'The capital of France is Paris.\n',
    toolCalls: [],
    finish: 'stop',
    usage: usage(13, 8),
  },
  'streamGenerateContent.sse.usage-every-chunk.sse': {
    content: Array.from({ length: 30 }, (_, index) => index + 1).join('\n'),
    toolCalls: [],
    finish: 'stop',
    usage: usage(18, 115, 35),
  },
  'streamGenerateContent.sse.function-call.turn1.sse': {
    content: '',
    toolCalls: [{ name: 'get_country', arguments: '{}', signed: true }],
    finish: 'tool_calls',
    usage: usage(29, 212, 202),
  },
  'streamGenerateContent.sse.function-call.turn2.sse': {
    content: 'The capital of Mexico is Mexico City.',
    toolCalls: [],
    finish: 'stop',
    usage: usage(257, 8),
  },
  // Old models put finishReason STOP on every event and send no usage: one finish, no usage.
  'streamGenerateContent.sse.legacy-gemini-pro.sse': {
    content:
      /^\*\*Cats:\*\*\n\n- \*\*Physical Characteristics:\*\*.*detecting any potential health issues early on\.$/s,
    toolCalls: [],
    finish: 'stop',
    usage: undefined,
  },
  'streamGenerateContent.text.chunks.jsonl': {
    content: /^There are \*\*3\*\* "r"s in strawberry\./,
    toolCalls: [],
    finish: 'stop',
    usage: usage(9, 208, 185),
  },
  'streamGenerateContent.function-call.chunks.jsonl': {
    content: '',
    toolCalls: [{ name: 'weather', arguments: '{"location":"San Francisco"}', signed: true }],
    finish: 'tool_calls',
    usage: usage(29, 60, 45),
  },
  'js-genai.stream.function-calling.turn1.response.chunks.jsonl': {
    content: '',
    toolCalls: [{ name: 'customDivide', arguments: '{"denominator":2,"numerator":100}' }],
    finish: 'tool_calls',
    usage: usage(21, 6),
  },
  'js-genai.stream.function-calling.turn2.response.chunks.jsonl': {
    content: '',
    toolCalls: [{ name: 'customDivide', arguments: '{"denominator":2,"numerator":50}' }],
    finish: 'tool_calls',
    usage: usage(38, 6),
  },
  'js-genai.stream.max-tokens.response.chunks.jsonl': {
    content: /^The sky is blue primarily due to a phenomenon called \*\*Rayleigh Scattering\*\*/,
    toolCalls: [],
    finish: 'length',
    usage: usage(7, 198, 45),
  },
  'vertex.streamGenerateContent.partial-args.chunks.jsonl': {
    content: '',
    toolCalls: [
      { name: 'getWeather', arguments: '{"location":"Boston"}', signed: true },
      { name: 'getWeather', arguments: '{"location":"San Francisco"}' },
    ],
    finish: 'tool_calls',
    usage: usage(26, 155, 132),
  },
};

describe('GeminiStreamDecoder replaying the recorded streams', () => {
  it('has an expectation for every Gemini stream fixture', () => {
    const streams = listFixtures('gemini').filter((name) => name.endsWith('.sse') || name.endsWith('.chunks.jsonl'));
    expect(streams.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('the .sse recordings really are CRLF-framed', () => {
    for (const name of Object.keys(EXPECTED).filter((file) => file.endsWith('.sse')))
      expect(geminiBytes(name).toString()).toContain('}\r\n\r\ndata: ');
  });

  it.each(Object.entries(EXPECTED))('%s, whole and in random byte pieces', (name, expected) => {
    const bytes = geminiBytes(name);
    const whole = runDecoder(new GeminiStreamDecoder(testContext()), [bytes]);
    for (const seed of [1, 2, 3, 42]) {
      expect(runDecoder(new GeminiStreamDecoder(testContext()), splitRandomly(bytes, seed))).toEqual(whole);
    }
    const result = aggregate(whole);
    if (typeof expected.content === 'string') expect(result.content).toBe(expected.content);
    else expect(result.content).toMatch(expected.content);
    expect(
      result.toolCalls.map((call) => ({
        name: call.name,
        arguments: call.arguments,
        ...(call.id.includes('.sig.') ? { signed: true } : {}),
      })),
    ).toEqual(expected.toolCalls);
    // Ids are ours, one per call, stable within the response.
    expect(result.toolCalls.map((call) => decodeGeminiToolCallId(call.id).id)).toEqual(
      expected.toolCalls.map((_, index) => `call_${index + 1}`),
    );
    expect(result.finishReasons).toEqual([expected.finish]);
    expect(result.usage).toEqual(expected.usage);
    expect(result.roles).toEqual(['assistant']);
    expect(whole.at(-1)).toEqual({ type: 'done' });
  });

  it('a thoughtSignature rides in the tool call id and comes back out unchanged', () => {
    const result = aggregate(
      runDecoder(new GeminiStreamDecoder(testContext()), [
        geminiBytes('streamGenerateContent.function-call.chunks.jsonl'),
      ]),
    );
    const recorded = JSON.parse(
      fixtureBytes('gemini', 'streamGenerateContent.function-call.chunks.jsonl').toString().split('\n')[0],
    );
    expect(decodeGeminiToolCallId(result.toolCalls[0].id).thoughtSignature).toBe(
      recorded.candidates[0].content.parts[0].thoughtSignature,
    );
  });

  it('thought parts stream as reasoning; a safety stop is content_filter; a blocked prompt answers empty with content_filter', () => {
    const thinking = [
      '{"candidates":[{"content":{"parts":[{"text":"Let me think.","thought":true}],"role":"model"}}]}',
      '{"candidates":[{"content":{"parts":[{"text":"Partial"}],"role":"model"},"finishReason":"SAFETY"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"thoughtsTokenCount":4}}',
    ].join('\n');
    expect(aggregate(runDecoder(new GeminiStreamDecoder(testContext()), [reframeGeminiJsonl(thinking)]))).toMatchObject(
      {
        reasoning: 'Let me think.',
        content: 'Partial',
        finishReasons: ['content_filter'],
        usage: usage(3, 5, 4),
      },
    );
    const blocked =
      '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}';
    expect(aggregate(runDecoder(new GeminiStreamDecoder(testContext()), [reframeGeminiJsonl(blocked)]))).toMatchObject({
      content: '',
      finishReasons: ['content_filter'],
      done: true,
    });
  });

  it('n > 1: each candidate is its own choice index with its own finish', () => {
    const text =
      '{"candidates":[{"index":0,"content":{"parts":[{"text":"A"}]}},{"index":1,"content":{"parts":[{"text":"B"}]},"finishReason":"STOP"}]}\n{"candidates":[{"index":0,"content":{"parts":[{"text":"!"}]},"finishReason":"MAX_TOKENS"}]}';
    const events = runDecoder(new GeminiStreamDecoder(testContext()), [reframeGeminiJsonl(text)]);
    const finishes = events.flatMap((event) =>
      event.type === 'chunk'
        ? event.chunk.choices
            .filter((choice) => choice.finish_reason)
            .map((choice) => [choice.index, choice.finish_reason])
        : [],
    );
    expect(finishes).toEqual([
      [0, 'length'],
      [1, 'stop'],
    ]);
  });

  it.each([
    [
      'as an SSE event',
      'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}\r\n\r\ndata: {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}\r\n\r\n',
      503,
      'unavailable',
    ],
    [
      'as the whole body of a 200 event-stream',
      fixtureBytes('gemini', 'error.404.not_found.json').toString(),
      404,
      'not_found',
    ],
    [
      'as a one-element array',
      `[${fixtureBytes('gemini', 'error.429.resource_exhausted.json').toString()}]`,
      429,
      'resource_exhausted',
    ],
  ])('a google.rpc.Status %s fails the stream with its status', (_name, body, status, code) => {
    let error: unknown;
    try {
      runDecoder(new GeminiStreamDecoder(testContext()), splitRandomly(Buffer.from(body), 5));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(status);
    expect((error as GatewayError).code).toBe(code);
  });

  it.each([
    ['cut inside an event', (text: string) => text.slice(0, text.indexOf('"text": " capital of France"') + 12)],
    [
      'with bad JSON in an event',
      (text: string) =>
        text.replace(
          '{"candidates": [{"content": {"parts": [{"text": " capital',
          '{"candidates": [{"content": {"parts": [{"text": capital',
        ),
    ],
  ])('a stream %s ends in one clean 502', (_name, mangle) => {
    const bytes = Buffer.from(mangle(geminiBytes('streamGenerateContent.sse.text.sse').toString()));
    expect(() => runDecoder(new GeminiStreamDecoder(testContext()), splitRandomly(bytes, 9))).toThrow(
      expect.objectContaining({ status: 502, code: 'upstream_bad_response' }),
    );
  });

  it('a stream cut between events has no finish reason, so no finish chunk and no done', () => {
    const text = geminiBytes('streamGenerateContent.sse.text.sse').toString();
    const cut = text.slice(0, text.lastIndexOf('data: '));
    const result = aggregate(runDecoder(new GeminiStreamDecoder(testContext()), [Buffer.from(cut)]));
    expect(result).toMatchObject({ content: 'The capital of France', finishReasons: [], done: false });
  });
});
