import { describe, expect, it } from 'vitest';
import { messagesToChat } from './messages-to-chat.js';
import type { MessagesRequest } from './messages-types.js';

const base: MessagesRequest = { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };

describe('messagesToChat', () => {
  it.each([
    [{ type: 'enabled', budget_tokens: 1024 }, undefined, 'low'],
    [{ type: 'enabled', budget_tokens: 16000 }, undefined, 'high'],
    [{ type: 'adaptive' }, undefined, undefined],
    [{ type: 'adaptive' }, { effort: 'medium' }, 'medium'],
    [{ type: 'adaptive' }, { effort: 'max' }, 'high'],
    [{ type: 'disabled' }, { effort: 'high' }, undefined],
    [undefined, { effort: 'low' }, 'low'],
  ])('thinking %j with output_config %j → reasoning_effort %s', (thinking, outputConfig, effort) => {
    const request = {
      ...base,
      ...(thinking ? { thinking } : {}),
      ...(outputConfig ? { output_config: outputConfig } : {}),
    };
    expect(messagesToChat(request as MessagesRequest).chat.reasoning_effort).toBe(effort);
  });

  it('system messages stay in place; cache_control, context_management and server tools are named', () => {
    const { chat, dropped, optionalSearchParam } = messagesToChat({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] },
        { role: 'system', content: 'Now in /work.' },
      ],
      tools: [
        { type: 'web_search_20250305', name: 'web_search' },
        { type: 'bash_20250124', name: 'bash' },
      ],
      context_management: { edits: [] },
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Now in /work.' },
    ]);
    expect(dropped).toEqual(['context_management', 'cache_control', 'tools.1:bash_20250124']);
    expect(optionalSearchParam).toBe('tools.0:web_search_20250305');
    expect(chat.enable_search).toBe(true);
  });

  it('strict: a server tool is refused by name', () => {
    expect(() =>
      messagesToChat({ ...base, tools: [{ type: 'bash_20250124', name: 'bash' }] }, { strict: true }),
    ).toThrow(/bash_20250124/);
  });
});
