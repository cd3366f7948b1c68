import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimateOutputTokens, estimatePromptSize, estimatePromptTokens } from './estimate-tokens.js';

describe('estimatePromptTokens', () => {
  it('counts text with the tokenizer plus the per-message overhead', () => {
    // "Hello world" is 2 tokens; "user" 1; 3 per message; 3 for the reply.
    expect(estimatePromptTokens({ model: 'm', messages: [{ role: 'user', content: 'Hello world' }] })).toBe(
      2 + 1 + 3 + 3,
    );
  });

  it('grows with content parts, tool calls and tool definitions', () => {
    const base = estimatePromptTokens({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const withImage = estimatePromptTokens({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'data:' } },
          ],
        },
      ],
    });
    expect(withImage).toBe(base + 765);
    const withTools = estimatePromptTokens({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'lookup_weather', parameters: { type: 'object' } } }],
    });
    expect(withTools).toBeGreaterThan(base + 5);
  });

  it('tokenizes the first 16,000 characters of a request and sizes the rest from its bytes, erring high for English', () => {
    const sentence = 'The quick brown fox jumps over the lazy dog while the band plays on. ';
    const long = sentence.repeat(1500); // ~100,000 characters
    const exact = countTokens(long);
    const estimate = estimatePromptTokens({ model: 'm', messages: [{ role: 'user', content: long }] });
    expect(estimate).toBe(Math.ceil(Buffer.byteLength(long) / 3) + 1 + 3 + 3);
    expect(estimate).toBeGreaterThanOrEqual(exact);
    expect(estimate).toBeLessThan(exact * 1.6);
    // Several messages share one budget: the first ones are tokenized exactly, later ones sized.
    const pieces = Array.from({ length: 4 }, () => ({ role: 'user' as const, content: sentence.repeat(70) }));
    const perPiece = countTokens(pieces[0].content);
    const sized = Math.ceil(Buffer.byteLength(pieces[0].content) / 3);
    expect((pieces[0].content.length + 4) * 4).toBeGreaterThan(16_000);
    expect((pieces[0].content.length + 4) * 3 + 4).toBeLessThanOrEqual(16_000);
    expect(estimatePromptTokens({ model: 'm', messages: pieces })).toBe(3 * (perPiece + 4) + (sized + 4) + 3);
  });

  it('sizes a prompt for admission from its UTF-8 bytes (three a token), erring high for English, about right for CJK', () => {
    const english = 'The quick brown fox jumps over the lazy dog while the band plays on. '.repeat(20);
    const request = { model: 'm', messages: [{ role: 'user' as const, content: english }] };
    const size = estimatePromptSize(request);
    expect(size).toBe(Math.ceil(Buffer.byteLength(english) / 3) + 2 + 3 + 3);
    const exact = estimatePromptTokens(request);
    expect(size).toBeGreaterThan(exact);
    expect(size).toBeLessThan(exact * 1.6);
    const chinese = '敏捷的棕色狐狸跳过了懒狗。'.repeat(50);
    const cjk = { model: 'm', messages: [{ role: 'user' as const, content: chinese }] };
    expect(estimatePromptSize(cjk)).toBeGreaterThan(estimatePromptTokens(cjk) * 0.7);
    // Attachments and tools count as they do for the tokenizer estimate.
    const withImage = estimatePromptSize({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] }],
    });
    expect(withImage).toBe(765 + 2 + 3 + 3);
  });

  it('estimates output from characters when a provider sends no usage', () => {
    expect(estimateOutputTokens(0)).toBe(0);
    expect(estimateOutputTokens(9)).toBe(3);
  });
});
