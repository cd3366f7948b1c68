import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../test/helpers/fixtures.js';
import type { ChatMessage } from '../../shared/openai-types.js';
import { responsesToChat } from './responses-to-chat.js';
import type { ResponsesRequest } from './responses-types.js';

/** Codex CLI's real first request (a Responses request with function, namespace and hosted tools). */
const codex = fixtureJson<{ body: ResponsesRequest }>('agents', 'codex-0.169.0.first-request.json').body;

/** A message with its text shortened, so a snapshot shows the mapping rather than Codex's prompt. */
function outline(message: ChatMessage): unknown {
  const content =
    typeof message.content === 'string'
      ? `${message.content.length} chars: ${message.content.slice(0, 24)}…`
      : message.content;
  return { ...message, content };
}

describe('responsesToChat on the recorded Codex CLI request', () => {
  const { chat, conversation, warnings, dropped, optionalSearchParam, namespaces } = responsesToChat(codex, null);

  it('developer and user input items become chat messages, text parts joined', () => {
    expect(chat.messages.map(outline)).toMatchInlineSnapshot(`
      [
        {
          "content": "16979 chars: You are a coding agent r…",
          "role": "developer",
        },
        {
          "content": "2480 chars: <skills_instructions>
      ##…",
          "role": "developer",
        },
        {
          "content": [
            {
              "text": "<environment_context>
        <cwd>/tmp/agent-capture/work</cwd>
        <shell>bash</shell>
        <current_date>2026-11-26</current_date>
        <timezone>Etc/UTC</timezone>
        <filesystem><workspace_roots><root>/tmp/agent-capture/work</root></workspace_roots><permission_profile type="managed"><file_system type="restricted"><entry access="read"><special>:root</special></entry></file_system></permission_profile></filesystem>
      </environment_context>",
              "type": "text",
            },
          ],
          "role": "user",
        },
        {
          "content": [
            {
              "text": "say hello",
              "type": "text",
            },
          ],
          "role": "user",
        },
      ]
    `);
    expect(conversation).toEqual(chat.messages);
    expect(warnings).toEqual([]);
  });

  it('function tools map one to one; the namespace tool is offered flat and remembered', () => {
    expect(chat.tools?.map((tool) => tool.function.name)).toMatchInlineSnapshot(`
      [
        "exec_command",
        "write_stdin",
        "request_user_input",
        "view_image",
        "multi_agent_v1__close_agent",
        "multi_agent_v1__resume_agent",
        "multi_agent_v1__send_input",
        "multi_agent_v1__spawn_agent",
        "multi_agent_v1__wait_agent",
        "get_goal",
        "create_goal",
        "update_goal",
      ]
    `);
    expect(chat.tools?.every((tool) => tool.type === 'function')).toBe(true);
    expect(Object.fromEntries(namespaces)).toMatchInlineSnapshot(`
      {
        "multi_agent_v1__close_agent": {
          "name": "close_agent",
          "namespace": "multi_agent_v1",
        },
        "multi_agent_v1__resume_agent": {
          "name": "resume_agent",
          "namespace": "multi_agent_v1",
        },
        "multi_agent_v1__send_input": {
          "name": "send_input",
          "namespace": "multi_agent_v1",
        },
        "multi_agent_v1__spawn_agent": {
          "name": "spawn_agent",
          "namespace": "multi_agent_v1",
        },
        "multi_agent_v1__wait_agent": {
          "name": "wait_agent",
          "namespace": "multi_agent_v1",
        },
      }
    `);
    const exec = codex.tools?.find((tool) => tool.type === 'function' && tool.name === 'exec_command');
    expect(chat.tools?.find((tool) => tool.function.name === 'exec_command')?.function.parameters).toEqual(
      (exec as { parameters: unknown }).parameters,
    );
  });

  it('hosted web_search asks for native search and is named as optional; the rest is named as dropped', () => {
    expect(chat.enable_search).toBe(true);
    expect(optionalSearchParam).toMatchInlineSnapshot(`"tools[8]:web_search"`);
    expect(dropped).toMatchInlineSnapshot(`
      [
        "include",
        "client_metadata",
        "reasoning.summary",
      ]
    `);
  });

  it('stream, tool_choice and parallel_tool_calls carry over; usage is asked for on the stream', () => {
    const { messages: _messages, tools: _tools, ...rest } = chat;
    expect(rest).toMatchInlineSnapshot(`
      {
        "enable_search": true,
        "model": "gpt-5.1-codex",
        "parallel_tool_calls": true,
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "tool_choice": "auto",
      }
    `);
  });

  it('strict: the first field chat cannot express is refused by name', () => {
    expect(() => responsesToChat(codex, null, { strict: true })).toThrow(/'include' is not supported/);
  });
});

describe('responsesToChat', () => {
  const base: ResponsesRequest = { model: 'm', input: 'Hi' };

  it('a follow-up turn: previous conversation, calls (namespace ones flattened) and their outputs', () => {
    const previous: ChatMessage[] = [{ role: 'user', content: 'List the files.' }];
    const { chat, conversation, warnings } = responsesToChat(
      {
        ...base,
        instructions: 'Be brief.',
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
          { type: 'function_call', call_id: 'call_a', name: 'exec_command', arguments: '{"cmd":"ls"}' },
          {
            type: 'function_call',
            call_id: 'call_b',
            namespace: 'multi_agent_v1',
            name: 'spawn_agent',
            arguments: '{}',
          },
          { type: 'function_call_output', call_id: 'call_a', output: 'a.txt' },
          { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: 'ok' }] },
        ] as ResponsesRequest['input'],
      },
      previous,
    );
    expect(chat.messages).toMatchInlineSnapshot(`
      [
        {
          "content": "Be brief.",
          "role": "system",
        },
        {
          "content": "List the files.",
          "role": "user",
        },
        {
          "content": "Looking.",
          "role": "assistant",
          "tool_calls": [
            {
              "function": {
                "arguments": "{"cmd":"ls"}",
                "name": "exec_command",
              },
              "id": "call_a",
              "type": "function",
            },
            {
              "function": {
                "arguments": "{}",
                "name": "multi_agent_v1__spawn_agent",
              },
              "id": "call_b",
              "type": "function",
            },
          ],
        },
        {
          "content": "a.txt",
          "role": "tool",
          "tool_call_id": "call_a",
        },
        {
          "content": "ok",
          "role": "tool",
          "tool_call_id": "call_b",
        },
      ]
    `);
    expect(conversation[0]).toEqual(previous[0]);
    expect(conversation).not.toContainEqual({ role: 'system', content: 'Be brief.' });
    expect(warnings).toEqual(['input[0]: reasoning item dropped']);
  });

  it('sampling, reasoning effort, output limit and a json_schema format', () => {
    const { chat, dropped } = responsesToChat(
      {
        ...base,
        max_output_tokens: 50,
        temperature: 0.2,
        top_p: 0.9,
        reasoning: { effort: 'low', summary: 'auto' },
        text: {
          format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
          verbosity: 'low',
        },
        user: 'u1',
      } as ResponsesRequest,
      null,
    );
    expect(chat).toMatchInlineSnapshot(`
      {
        "max_completion_tokens": 50,
        "messages": [
          {
            "content": "Hi",
            "role": "user",
          },
        ],
        "model": "m",
        "reasoning_effort": "low",
        "response_format": {
          "json_schema": {
            "name": "out",
            "schema": {
              "type": "object",
            },
            "strict": true,
          },
          "type": "json_schema",
        },
        "temperature": 0.2,
        "top_p": 0.9,
        "user": "u1",
      }
    `);
    expect(dropped).toEqual(['reasoning.summary', 'text.verbosity']);
  });

  it('user images and files become chat parts', () => {
    const { chat } = responsesToChat(
      {
        ...base,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: 'data:image/png;base64,AA==', detail: 'low' },
              { type: 'input_file', file_data: 'data:application/pdf;base64,AA==', filename: 'a.pdf' },
            ],
          },
        ],
      } as ResponsesRequest,
      null,
    );
    expect(chat.messages[0]).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "text": "What is this?",
            "type": "text",
          },
          {
            "image_url": {
              "detail": "low",
              "url": "data:image/png;base64,AA==",
            },
            "type": "image_url",
          },
          {
            "file": {
              "file_data": "data:application/pdf;base64,AA==",
              "filename": "a.pdf",
            },
            "type": "file",
          },
        ],
        "role": "user",
      }
    `);
  });

  it.each([
    [{ input: [] }, /Missing required parameter: 'input'/],
    [{ input: [{ role: 'tool', content: 'x' }] }, /input\[0\]\.role/],
    [{ input: [{ type: 'function_call', name: 'f' }] }, /input\[0\]\.call_id/],
    [{ input: [{ type: 'function_call_output' }] }, /input\[0\]\.call_id/],
    [{ input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: 'x' }] }] }, /Only user messages/],
    [{ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] }, /file_id is not supported/],
    [{ text: { format: { type: 'json_schema', name: 'x' } } }, /text\.format\.name' and 'text\.format\.schema/],
  ])('bad input %j is refused with a clear error', (fields, message) => {
    expect(() => responsesToChat({ ...base, ...fields } as ResponsesRequest, null)).toThrow(message);
  });

  it('unknown input items are dropped and named (refused under strict)', () => {
    const request = {
      ...base,
      input: [
        { type: 'computer_call_output', call_id: 'c' },
        { role: 'user', content: 'Hi' },
      ],
    };
    expect(responsesToChat(request as ResponsesRequest, null).dropped).toEqual(['input:computer_call_output']);
    expect(() => responsesToChat(request as ResponsesRequest, null, { strict: true })).toThrow(
      /'computer_call_output' items are not supported/,
    );
  });
});
