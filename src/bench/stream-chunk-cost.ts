/**
 * CPU per streamed chunk of an Anthropic Messages stream answered by an Anthropic endpoint:
 * the translated path the gateway took before native pass-through (provider events → chat
 * chunks → Messages events, each parsed and serialised) against the native path (the bytes
 * written as they are; SSE framing decoded only to feed the usage reader). Pure CPU in one
 * process (process.cpuUsage, median of rounds), so it holds on a busy machine better than a
 * load test; it leaves out the socket work both paths share.
 *
 *   node dist/bench/stream-chunk-cost.js [deltas=2000] [rounds=7]
 */
import { AnthropicStreamDecoder } from '../providers/anthropic/anthropic-stream-decoder.js';
import { anthropicNative } from '../providers/anthropic/anthropic-native.js';
import { SseDecoder } from '../providers/framing/sse-decoder.js';
import type { TranslationContext } from '../providers/provider-adapter.js';
import { conformChunk } from '../gateway/conform-chat-answer.js';
import { MessagesStreamTranslator } from '../gateway/messages/messages-stream-translator.js';
import { median } from './percentiles.js';

const deltas = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 7);

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const words = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', '.'];
const frames: Uint8Array[] = [];
const encoder = new TextEncoder();
frames.push(
  encoder.encode(
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-up',
        content: [],
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    }) +
      event('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'text', text: '' },
      }),
  ),
);
for (let index = 0; index < deltas; index++)
  frames.push(
    encoder.encode(
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: words[index % words.length] },
      }),
    ),
  );
frames.push(
  encoder.encode(
    event('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: deltas },
      }) +
      event('message_stop', { type: 'message_stop' }),
  ),
);

const context: TranslationContext = {
  provider: {
    id: 'claude',
    name: 'Anthropic',
    type: 'anthropic',
    baseUrl: '',
    apiKey: 'x',
    headers: {},
    timeouts: { connectMs: 1, firstByteMs: 1, idleMs: 1, totalMs: 1 },
    maxConnections: 1,
    options: {},
    policies: {},
    fromEnvironment: false,
  } as TranslationContext['provider'],
  upstreamModel: 'claude-up',
  publicModel: 'test/claude',
  completionId: 'chatcmpl-1',
  created: 1,
  generateId: (prefix) => `${prefix}1`,
  stream: true,
};

/** What the client receives, as the translated path built it (written to a sink). */
function translated(): number {
  const decoder = new AnthropicStreamDecoder(context);
  const translator = new MessagesStreamTranslator('msg_1', 'test/claude');
  let written = 0;
  const write = (events: Array<{ type: string }>) => {
    for (const each of events) written += `event: ${each.type}\ndata: ${JSON.stringify(each)}\n\n`.length;
  };
  write(translator.start());
  for (const frame of frames)
    for (const decoded of decoder.push(frame))
      if (decoded.type === 'chunk') write(translator.push(conformChunk(decoded.chunk)));
  decoder.end();
  write(translator.finish(null));
  return written;
}

/** The native path: bytes passed on, events offered to the usage reader. */
function native(): number {
  const sse = new SseDecoder();
  const reader = anthropicNative.createUsageReader({ body: {}, stream: true, clientHeaders: {} });
  let written = 0;
  for (const frame of frames) {
    for (const decoded of sse.push(frame)) reader.event(decoded);
    written += frame.byteLength;
  }
  for (const decoded of sse.end()) reader.event(decoded);
  reader.end();
  if (!reader.complete || !reader.usage) throw new Error('the native reader missed the usage');
  return written;
}

function microsPerChunk(run: () => number): number {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    for (let repeat = 0; repeat < 5; repeat++) run();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / (5 * deltas));
  }
  return median(samples);
}

translated();
native();
const before = microsPerChunk(translated);
const after = microsPerChunk(native);
console.log(`deltas per stream: ${deltas}, rounds: ${rounds} (median)`);
console.log(`translated (before native pass-through): ${before.toFixed(2)} µs CPU per chunk`);
console.log(`native pass-through:                     ${after.toFixed(2)} µs CPU per chunk`);
console.log(`ratio: ${(before / after).toFixed(1)} ×`);
