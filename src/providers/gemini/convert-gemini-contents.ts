import { InvalidRequestError } from '../../shared/errors.js';
import type { ChatMessage, ContentPart } from '../../shared/openai-types.js';
import { mediaTypeFromUrl, parseDataUrl } from '../shared/data-url.js';
import { parseToolCallArguments, textOfContent } from '../shared/request-content.js';
import { decodeGeminiToolCallId } from './gemini-tool-call-id.js';
import type { GeminiContent, GeminiPart, GeminiRequest } from './gemini-types.js';

export interface ConvertedGeminiContents {
  contents: GeminiContent[];
  systemInstruction?: GeminiRequest['systemInstruction'];
}

const AUDIO_MEDIA_TYPES: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mp3' };

/**
 * OpenAI messages → Gemini `contents` + `systemInstruction`. Assistant turns are role `model`;
 * a tool answer becomes a `functionResponse` (named after the call it answers, found by id in
 * the earlier assistant turns; both carry the call id, which Gemini accepts and uses to pair
 * parallel calls with their answers); consecutive turns of one role are merged, so all responses to
 * one turn's calls travel together as Gemini expects.
 */
export function convertGeminiContents(messages: ChatMessage[]): ConvertedGeminiContents {
  const systemTexts: string[] = [];
  const contents: GeminiContent[] = [];
  const toolNamesById = new Map<string, string>();
  const append = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };

  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOfContent(message.content);
        if (text) systemTexts.push(text);
        break;
      }
      case 'user':
        append('user', userParts(message.content, where));
        break;
      case 'assistant': {
        const parts: GeminiPart[] = [];
        const text = textOfContent(message.content);
        if (text) parts.push({ text });
        (message.tool_calls ?? []).forEach((call, callIndex) => {
          toolNamesById.set(call.id, call.function.name);
          const { id, thoughtSignature } = decodeGeminiToolCallId(call.id);
          parts.push({
            functionCall: {
              id,
              name: call.function.name,
              args: parseToolCallArguments(call, `${where}.tool_calls[${callIndex}]`),
            },
            ...(thoughtSignature ? { thoughtSignature } : {}),
          });
        });
        append('model', parts);
        break;
      }
      case 'tool': {
        const name = toolNamesById.get(message.tool_call_id ?? '');
        if (!name) {
          throw new InvalidRequestError(
            `Invalid '${where}.tool_call_id': no earlier assistant tool call has the id '${message.tool_call_id}'.`,
            `${where}.tool_call_id`,
          );
        }
        const { id } = decodeGeminiToolCallId(message.tool_call_id ?? '');
        append('user', [{ functionResponse: { id, name, response: toolResponse(textOfContent(message.content)) } }]);
        break;
      }
    }
  });
  const converted: ConvertedGeminiContents = { contents };
  if (systemTexts.length > 0) converted.systemInstruction = { parts: systemTexts.map((text) => ({ text })) };
  return converted;
}

/** Gemini wants an object as a function's response: a JSON object answer is used as is, anything else under `output`. */
function toolResponse(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    return { output: parsed };
  } catch {
    return { output: text };
  }
}

function userParts(content: ChatMessage['content'], where: string): GeminiPart[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part, partIndex) => userPart(part, `${where}.content[${partIndex}]`));
}

function userPart(part: ContentPart, where: string): GeminiPart[] {
  switch (part.type) {
    case 'text':
      return part.text ? [{ text: part.text }] : [];
    case 'image_url': {
      const url = part.image_url.url;
      const inline = parseDataUrl(url);
      if (inline) return [{ inlineData: { mimeType: inline.mediaType, data: inline.data } }];
      // Remote files go by reference; Gemini needs their media type, guessed from the name.
      return [{ fileData: { fileUri: url, mimeType: mediaTypeFromUrl(url, 'image/jpeg') } }];
    }
    case 'input_audio': {
      const mimeType = AUDIO_MEDIA_TYPES[part.input_audio.format];
      if (!mimeType)
        throw new InvalidRequestError(
          `Invalid '${where}.input_audio.format': expected wav or mp3.`,
          `${where}.input_audio.format`,
        );
      return [{ inlineData: { mimeType, data: part.input_audio.data } }];
    }
    case 'file': {
      const inline = part.file.file_data ? parseDataUrl(part.file.file_data) : null;
      if (inline) return [{ inlineData: { mimeType: inline.mediaType, data: inline.data } }];
      throw new InvalidRequestError(
        `Invalid '${where}.file': Gemini takes files as base64 data URLs in 'file_data'.`,
        `${where}.file`,
      );
    }
  }
}
