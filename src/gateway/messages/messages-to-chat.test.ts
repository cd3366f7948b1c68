import { describe, expect, it } from 'vitest';
import { messagesToChat } from './messages-to-chat.js';
import type { MessagesRequest } from './messages-types.js';
import { fixtureJson } from '../../../test/helpers/fixtures.js';

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

describe('messagesToChat on the recorded Claude Code request', () => {
  const claudeCode = fixtureJson<{ body: MessagesRequest }>('agents', 'claude-code-2.1.197.first-request.json').body;
  const { chat, dropped, optionalSearchParam } = messagesToChat(claudeCode);

  it('system blocks lead, then the turns; cache_control and context_management are named as dropped', () => {
    expect(
      chat.messages.map((message) => ({
        role: message.role,
        content: typeof message.content === 'string' ? `${message.content.length} chars` : message.content,
      })),
    ).toMatchInlineSnapshot(`
      [
        {
          "content": "6123 chars",
          "role": "system",
        },
        {
          "content": "315 chars",
          "role": "user",
        },
        {
          "content": "6062 chars",
          "role": "system",
        },
      ]
    `);
    expect(dropped).toMatchInlineSnapshot(`
      [
        "context_management",
        "cache_control",
      ]
    `);
    expect(optionalSearchParam).toBeUndefined();
  });

  it('custom tools become function tools with their schemas; adaptive thinking with effort high', () => {
    expect(chat.tools?.map((tool) => tool.function.name)).toEqual(claudeCode.tools?.map((tool) => tool.name));
    const bash = claudeCode.tools?.find((tool) => tool.name === 'Bash') as { input_schema: unknown };
    expect(chat.tools?.find((tool) => tool.function.name === 'Bash')?.function.parameters).toEqual(bash.input_schema);
    const { messages: _messages, tools: _tools, ...rest } = chat;
    expect(rest).toMatchInlineSnapshot(`
      {
        "max_tokens": 64000,
        "model": "claude-opus-4-8",
        "reasoning_effort": "high",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "user": "{"device_id":"561e1b0f540090ed6c683e640059d30bc7139e51d9be4db268f49e6680d33f20","account_uuid":"","session_id":"9b376adb-9a2c-45b3-8aea-5d425100f24a"}",
      }
    `);
  });
});
