import { describe, expect, it } from 'vitest';
import { fixtureBytes } from '../../../test/helpers/fixtures.js';
import { testContext } from '../../../test/helpers/translation-context.js';
import { parseGeminiResponse } from './parse-gemini-response.js';
import { decodeGeminiToolCallId } from './gemini-tool-call-id.js';

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('parseGeminiResponse', () => {
  it.each([
    [
      'generateContent.text.response.json',
      /^There are \*\*3\*\* r's in strawberry\./,
      'stop',
      {
        prompt_tokens: 9,
        completion_tokens: 272,
        total_tokens: 281,
        completion_tokens_details: { reasoning_tokens: 244 },
      },
    ],
    [
      'js-genai.nonstream.text.response.json',
      /^The sky is blue because of something called \*\*Rayleigh Scattering\*\*/,
      'length',
      {
        prompt_tokens: 7,
        completion_tokens: 197,
        total_tokens: 204,
        completion_tokens_details: { reasoning_tokens: 48 },
      },
    ],
  ])('%s', (fixture, content, finishReason, usage) => {
    const completion = parseGeminiResponse(fixtureBytes('gemini', fixture), testContext());
    expect(completion).toMatchObject({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      model: 'public/model',
      created: 1_700_000_000,
    });
    expect(completion.choices[0].message.content).toMatch(content);
    expect(completion.choices[0].finish_reason).toBe(finishReason);
    expect(completion.usage).toMatchObject(usage);
  });

  it('generateContent.function-call.response.json: a tool call with our id carrying the thoughtSignature', () => {
    const completion = parseGeminiResponse(
      fixtureBytes('gemini', 'generateContent.function-call.response.json'),
      testContext(),
    );
    const message = completion.choices[0].message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toHaveLength(1);
    expect(message.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'weather', arguments: '{"location":"San Francisco"}' },
    });
    expect(decodeGeminiToolCallId(message.tool_calls?.[0].id ?? '')).toEqual({
      id: 'call_1',
      thoughtSignature:
        'EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5',
    });
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(completion.usage).toMatchObject({ prompt_tokens: 29, completion_tokens: 908, total_tokens: 937 });
  });

  it('thought parts become reasoning; several candidates become several choices', () => {
    const completion = parseGeminiResponse(
      encode({
        candidates: [
          { index: 0, content: { parts: [{ text: 'Hmm.', thought: true }, { text: 'One' }] }, finishReason: 'STOP' },
          { index: 1, content: { parts: [{ text: 'Two' }] }, finishReason: 'RECITATION' },
        ],
        usageMetadata: {
          promptTokenCount: 4,
          candidatesTokenCount: 2,
          thoughtsTokenCount: 1,
          cachedContentTokenCount: 3,
        },
      }),
      testContext(),
    );
    expect(
      completion.choices.map((choice) => [
        choice.index,
        choice.message.content,
        choice.message.reasoning,
        choice.finish_reason,
      ]),
    ).toEqual([
      [0, 'One', 'Hmm.', 'stop'],
      [1, 'Two', undefined, 'content_filter'],
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 4,
      completion_tokens: 3,
      total_tokens: 7,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
  });

  it('a blocked prompt answers empty with finish_reason content_filter', () => {
    const completion = parseGeminiResponse(
      encode({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5 } }),
      testContext(),
    );
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: '', refusal: null },
        finish_reason: 'content_filter',
        logprobs: null,
      },
    ]);
  });

  it('a google.rpc.Status in a 200 body is that error', () => {
    expect(() => parseGeminiResponse(fixtureBytes('gemini', 'error.400.invalid_argument.json'), testContext())).toThrow(
      expect.objectContaining({ status: 400, code: 'invalid_argument' }),
    );
  });
});
