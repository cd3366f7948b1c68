import { describe, expect, it } from 'vitest';
import { geminiToChat } from './gemini-to-chat.js';

describe('geminiToChat', () => {
  it('turns, calls without ids matched to their responses by name, system instruction', () => {
    const { chat, dropped } = geminiToChat(
      'm',
      {
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        contents: [
          { role: 'user', parts: [{ text: 'Weather?' }] },
          {
            role: 'model',
            parts: [{ text: 'thinking', thought: true }, { functionCall: { name: 'w', args: { c: 'P' } } }],
          },
          { role: 'user', parts: [{ functionResponse: { name: 'w', response: { t: 20 } } }] },
        ],
      },
      { stream: false },
    );
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'w', arguments: '{"c":"P"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_0', content: '{"t":20}' },
    ]);
    expect(dropped).toEqual([]);
  });

  it.each([
    [{ thinkingLevel: 'HIGH' }, 'high'],
    [{ thinkingBudget: 1024 }, 'low'],
    [{ thinkingBudget: 8000 }, 'medium'],
    [{ thinkingBudget: 24576 }, 'high'],
    [{ thinkingBudget: -1 }, undefined],
    [{ thinkingBudget: 0 }, undefined],
  ])('thinkingConfig %j → reasoning_effort %s', (thinkingConfig, effort) => {
    const { chat } = geminiToChat(
      'm',
      { contents: [{ role: 'user', parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig } },
      { stream: false },
    );
    expect(chat.reasoning_effort).toBe(effort);
  });

  it('upper-case OpenAPI types become JSON Schema; googleSearch asks for search; the rest is named', () => {
    const { chat, dropped, optionalSearchParam } = geminiToChat(
      'm',
      {
        contents: [{ role: 'user', parts: [{ text: 'x' }] }],
        tools: [
          {
            functionDeclarations: [
              { name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } },
            ],
          },
          { googleSearch: {} },
          { codeExecution: {} },
        ],
        safetySettings: [],
        generationConfig: { topK: 40 },
      },
      { stream: true },
    );
    expect(chat.tools?.[0].function.parameters).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(chat.enable_search).toBe(true);
    expect(optionalSearchParam).toBe('tools[1].googleSearch');
    expect(dropped).toEqual(['safetySettings', 'generationConfig.topK', 'tools[2].codeExecution']);
    expect(chat.stream_options).toEqual({ include_usage: true });
  });

  it('strict: the first thing chat cannot express is refused, naming it', () => {
    expect(() =>
      geminiToChat(
        'm',
        { contents: [{ role: 'user', parts: [{ text: 'x' }] }], cachedContent: 'c' },
        { stream: false, strict: true },
      ),
    ).toThrow(/cachedContent/);
  });
});
