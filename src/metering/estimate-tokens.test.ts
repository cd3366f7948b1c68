import { describe, expect, it } from 'vitest';
import { estimateOutputTokens, estimatePromptTokens } from './estimate-tokens.js';

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

  it('estimates output from characters when a provider sends no usage', () => {
    expect(estimateOutputTokens(0)).toBe(0);
    expect(estimateOutputTokens(9)).toBe(3);
  });
});
