import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../shared/openai-types.js';
import { GeminiStreamTranslator } from './chat-to-gemini.js';

const chunk = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: string | null = null) =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }) as ChatCompletionChunk;
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

describe('GeminiStreamTranslator', () => {
  it('sends the finish reason and the usage in one last chunk, as Gemini does', () => {
    const translator = new GeminiStreamTranslator('test/m', 'r1');
    expect(translator.push(chunk({ content: 'Hi' }))).toHaveLength(1);
    expect(translator.push(chunk({}, 'stop'))).toEqual([]);
    const last = translator.finish(usage);
    expect(last).toHaveLength(1);
    expect(last[0]!.candidates![0]!.finishReason).toBe('STOP');
    expect(last[0]!.usageMetadata).toMatchObject({ promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 });
  });

  it('a function call finished before a failure still goes out (finish(null))', () => {
    const translator = new GeminiStreamTranslator('test/m', 'r1');
    translator.push(
      chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }),
    );
    translator.push(chunk({}, 'tool_calls'));
    const last = translator.finish(null);
    expect(last[0]!.candidates![0]!.content!.parts![0]).toEqual({ functionCall: { id: 'c1', name: 'f', args: {} } });
    expect(last[0]!.usageMetadata).toBeUndefined();
  });

  it('without a finish chunk the usage comes alone', () => {
    const translator = new GeminiStreamTranslator('test/m', 'r1');
    expect(translator.finish(usage)[0]!.usageMetadata).toBeDefined();
    expect(new GeminiStreamTranslator('test/m', 'r1').finish(null)).toEqual([]);
  });
});
