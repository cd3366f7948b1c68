import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatMessage, ContentPart } from '../../shared/openai-types.js';
import { parseDataUrl } from '../shared/data-url.js';
import { parseToolCallArguments, textOfContent } from '../shared/request-content.js';
import type { AnthropicContentBlock, AnthropicMessage } from './anthropic-types.js';

export interface ConvertedAnthropicMessages {
  system: Array<{ type: 'text'; text: string }>;
  messages: AnthropicMessage[];
}

/**
 * OpenAI messages → Anthropic `system` + `messages`. System and developer messages (wherever
 * they are) become the top-level system blocks; tool answers become user `tool_result` blocks;
 * consecutive messages of one role are merged, because Anthropic wants every tool result of a
 * turn in the one user message that follows it.
 */
export function convertAnthropicMessages(messages: ChatMessage[]): ConvertedAnthropicMessages {
  const system: Array<{ type: 'text'; text: string }> = [];
  const converted: AnthropicMessage[] = [];
  const append = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = converted.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else converted.push({ role, content: blocks });
  };

  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOfContent(message.content);
        if (text) system.push({ type: 'text', text });
        break;
      }
      case 'user':
        append('user', userBlocks(message.content, where));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, where));
        break;
      case 'tool':
        append('user', [
          {
            type: 'tool_result',
            tool_use_id: anthropicToolId(message.tool_call_id ?? ''),
            content: typeof message.content === 'string' ? message.content : textBlocks(message.content),
          },
        ]);
        break;
    }
  });
  return { system, messages: converted };
}

/** Anthropic tool ids allow only [A-Za-z0-9_-]; ids from other providers are made to fit, the same way on both sides. */
function anthropicToolId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}

function textBlocks(content: ChatMessage['content']): Array<{ type: 'text'; text: string }> {
  const text = textOfContent(content);
  return text ? [{ type: 'text', text }] : [];
}

function userBlocks(content: ChatMessage['content'], where: string): AnthropicContentBlock[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part, partIndex) => userPart(part, `${where}.content[${partIndex}]`));
}

function userPart(part: ContentPart, where: string): AnthropicContentBlock[] {
  switch (part.type) {
    case 'text':
      // Anthropic refuses empty text blocks; an empty part carries nothing anyway.
      return part.text ? [{ type: 'text', text: part.text }] : [];
    case 'image_url': {
      const inline = parseDataUrl(part.image_url.url);
      if (inline)
        return [{ type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } }];
      if (/^https?:\/\//i.test(part.image_url.url))
        return [{ type: 'image', source: { type: 'url', url: part.image_url.url } }];
      throw new InvalidRequestError(
        `Invalid '${where}.image_url.url': expected an https URL or a base64 data URL.`,
        `${where}.image_url.url`,
      );
    }
    case 'file': {
      const inline = part.file.file_data ? parseDataUrl(part.file.file_data) : null;
      if (inline)
        return [{ type: 'document', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } }];
      throw new InvalidRequestError(
        `Invalid '${where}.file': Anthropic takes files as base64 data URLs in 'file_data'.`,
        `${where}.file`,
      );
    }
    case 'input_audio':
      throw new InvalidRequestError(
        `Invalid '${where}.type': Anthropic models do not accept audio input.`,
        `${where}.type`,
        'unsupported_content',
      );
  }
}

function assistantBlocks(message: ChatMessage, where: string): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [...textBlocks(message.content)];
  (message.tool_calls ?? []).forEach((call, callIndex) => {
    blocks.push({
      type: 'tool_use',
      id: anthropicToolId(call.id),
      name: call.function.name,
      input: parseToolCallArguments(call, `${where}.tool_calls[${callIndex}]`),
    });
  });
  return blocks;
}
