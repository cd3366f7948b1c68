import { toApiError } from '../../api/client';

export interface StreamUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type StreamEvent =
  | { kind: 'delta'; text: string }
  | { kind: 'usage'; usage: StreamUsage }
  | { kind: 'error'; message: string }
  | { kind: 'done' };

/**
 * Server-sent events → chat events, fed text as it arrives. Keeps the unfinished tail between
 * calls, since a network chunk can end in the middle of an event. Handles the gateway's
 * `event: error` frame (a failure after the stream started) as well as plain `data:` chunks.
 */
export class ChatStreamParser {
  private buffer = '';

  push(text: string): StreamEvent[] {
    this.buffer += text.replace(/\r\n/g, '\n');
    const events: StreamEvent[] = [];
    let boundary: number;
    while ((boundary = this.buffer.indexOf('\n\n')) >= 0) {
      const frame = this.buffer.slice(0, boundary);
      this.buffer = this.buffer.slice(boundary + 2);
      events.push(...parseFrame(frame));
    }
    return events;
  }
}

function parseFrame(frame: string): StreamEvent[] {
  let name = 'message';
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length === 0) return [];
  const payload = data.join('\n');
  if (payload === '[DONE]') return [{ kind: 'done' }];
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return [{ kind: 'error', message: 'The stream sent something that is not JSON.' }];
  }
  if (name === 'error' || (typeof parsed === 'object' && parsed !== null && 'error' in parsed)) {
    const envelope = parsed as { error?: { message?: string } };
    return [{ kind: 'error', message: envelope.error?.message ?? 'The stream failed.' }];
  }
  const chunk = parsed as { choices?: { delta?: { content?: string | null } }[]; usage?: StreamUsage | null };
  const events: StreamEvent[] = [];
  const text = chunk.choices?.[0]?.delta?.content;
  if (text) events.push({ kind: 'delta', text });
  if (chunk.usage) events.push({ kind: 'usage', usage: chunk.usage });
  return events;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Streams one chat completion through /v1 with an API key, calling onEvent as tokens arrive. */
export async function streamChat(options: {
  apiKey: string;
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  signal: AbortSignal;
  onEvent: (event: StreamEvent) => void;
}): Promise<void> {
  const response = await fetch('/v1/chat/completions', {
    method: 'POST',
    signal: options.signal,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
    body: JSON.stringify({
      model: options.model,
      messages: options.messages,
      stream: true,
      stream_options: { include_usage: true },
      temperature: options.temperature,
      max_tokens: options.maxTokens,
    }),
  });
  if (!response.ok || !response.body) throw toApiError(response.status, await response.json().catch(() => null));
  const parser = new ChatStreamParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const event of parser.push(value)) options.onEvent(event);
  }
}

/** A turn's cost from the model's prices (USD per million tokens, as decimal strings). */
export function turnCost(
  usage: StreamUsage,
  pricing: { prompt: string | null; completion: string | null },
): number | null {
  if (pricing.prompt === null || pricing.completion === null) return null;
  return (usage.prompt_tokens * Number(pricing.prompt) + usage.completion_tokens * Number(pricing.completion)) / 1e6;
}
