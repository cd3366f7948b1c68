import type { StreamDecoder, StreamEvent } from '../../src/providers/provider-adapter.js';
import type { Usage } from '../../src/shared/openai-types.js';

/** Feeds the pieces to a decoder in order and ends it: every event it yields. */
export function runDecoder(decoder: StreamDecoder, pieces: Uint8Array[]): StreamEvent[] {
  const events = pieces.flatMap((piece) => decoder.push(piece));
  return [...events, ...decoder.end()];
}

export interface AggregatedStream {
  content: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReasons: string[];
  usage: Usage | undefined;
  done: boolean;
  roles: string[];
}

/** What a client would assemble from the chunks, to compare with the recording. */
export function aggregate(events: StreamEvent[]): AggregatedStream {
  const result: AggregatedStream = {
    content: '',
    reasoning: '',
    toolCalls: [],
    finishReasons: [],
    usage: undefined,
    done: false,
    roles: [],
  };
  for (const event of events) {
    if (event.type === 'usage') result.usage = event.usage;
    else if (event.type === 'done') result.done = true;
    else {
      for (const choice of event.chunk.choices) {
        const delta = choice.delta;
        if (delta.role) result.roles.push(delta.role);
        if (typeof delta.content === 'string') result.content += delta.content;
        if (typeof delta.reasoning === 'string') result.reasoning += delta.reasoning;
        for (const call of delta.tool_calls ?? []) {
          const existing = (result.toolCalls[call.index] ??= { id: '', name: '', arguments: '' });
          if (call.id) existing.id = call.id;
          if (call.function?.name) existing.name = call.function.name;
          existing.arguments += call.function?.arguments ?? '';
        }
        if (choice.finish_reason) result.finishReasons.push(choice.finish_reason);
      }
    }
  }
  return result;
}
