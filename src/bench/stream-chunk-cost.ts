/**
 * CPU per streamed chunk, translated against native pass-through, for the two APIs agents use
 * most: a Messages stream answered by an Anthropic endpoint, and a chat completions stream
 * answered by an OpenAI endpoint. "Translated" is the path the gateway took before pass-through
 * (provider events decoded into chat chunks and written again), and still takes for every
 * OpenAI-compatible server that is not OpenAI: for chat that is now mostly the upstream's own
 * chunk text, renamed (openai-compact-chunk.ts, openai-chunk-splice.ts); "native" writes the
 * upstream's bytes and decodes the SSE framing only to feed the usage reader. Chat is measured a
 * third way: native for a client that did not ask for the usage chunk (the bytes still, but the
 * last read, which holds the usage chunk, framed again without it). Pure CPU in one process (process.cpuUsage, median of rounds):
 * it holds on a busy machine better than a load test and leaves out the socket work both paths
 * share. `npm run bench` prints it (src/bench/run-bench.ts).
 */
import { AnthropicStreamDecoder } from '../providers/anthropic/anthropic-stream-decoder.js';
import { anthropicNative } from '../providers/anthropic/anthropic-native.js';
import { OpenAIStreamDecoder } from '../providers/openai/openai-stream-decoder.js';
import { openAIAdapter } from '../providers/openai/openai-adapter.js';
import { SseDecoder } from '../providers/framing/sse-decoder.js';
import type { NativeSupport, TranslationContext } from '../providers/provider-adapter.js';
import { conformChunk } from '../gateway/conform-chat-answer.js';
import { sseChunk } from '../gateway/sse.js';
import { HiddenEventFilter } from '../gateway/engine/hidden-event-filter.js';
import { MessagesStreamTranslator } from '../gateway/messages/messages-stream-translator.js';
import { median } from './percentiles.js';
import { ANSWER_SHAPE, BENCH_MODELS } from './bench-models.js';
import {
  buildStreamScript,
  chunkHead,
  renderEvents,
  usageOf,
  type CompletionPlan,
} from '../mock-upstream/mock-answers.js';

/** Microseconds of CPU per streamed chunk, each path; the median over the rounds. */
export interface StreamChunkCost {
  deltas: number;
  rounds: number;
  messagesTranslated: number;
  messagesNative: number;
  chatTranslated: number;
  chatNative: number;
  /** Native chat for a client that did not ask for usage (the usage chunk left out). */
  chatNativeUsageHidden: number;
  /**
   * The benchmark's own stream (the fake upstream's 50 chunks of 4 words, role, finish, usage and
   * [DONE]: 54 events, all in one read as the fast upstream's arrives) through the translated
   * chat path, per event: the per-chunk part of the gateway's "CPU per streamed chunk".
   */
  chatBenchStream: number;
}

const WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', '.'];
const encoder = new TextEncoder();
const anthropicEvent = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** An Anthropic stream of `deltas` text deltas, one read each (as a socket delivers a slow stream). */
function anthropicFrames(deltas: number): Uint8Array[] {
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-up',
    content: [],
    usage: { input_tokens: 100, output_tokens: 1 },
  };
  const frames = [
    encoder.encode(
      anthropicEvent('message_start', { type: 'message_start', message }) +
        anthropicEvent('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
    ),
  ];
  for (let index = 0; index < deltas; index++) {
    const delta = { type: 'text_delta', text: WORDS[index % WORDS.length] };
    frames.push(
      encoder.encode(anthropicEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta })),
    );
  }
  frames.push(
    encoder.encode(
      anthropicEvent('content_block_stop', { type: 'content_block_stop', index: 0 }) +
        anthropicEvent('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn' },
          usage: { output_tokens: deltas },
        }) +
        anthropicEvent('message_stop', { type: 'message_stop' }),
    ),
  );
  return frames;
}

/** An OpenAI chat stream as OpenAI sends it with include_usage (`"usage":null` on every chunk). */
function chatFrames(deltas: number): Uint8Array[] {
  const chunk = (delta: object, finish: string | null, extra: object = { usage: null }) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-up',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-up',
      system_fingerprint: 'fp_1',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    })}\n\n`;
  const frames = [encoder.encode(chunk({ role: 'assistant', content: '', refusal: null }, null))];
  for (let index = 0; index < deltas; index++)
    frames.push(encoder.encode(chunk({ content: WORDS[index % WORDS.length] }, null)));
  const usage = { prompt_tokens: 100, completion_tokens: deltas, total_tokens: 100 + deltas };
  const usageChunk = `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'gpt-up', choices: [], usage })}\n\n`;
  frames.push(encoder.encode(chunk({}, 'stop') + usageChunk + 'data: [DONE]\n\n'));
  return frames;
}

/** The fake upstream's answer to the benchmark's streamed request, as its bytes (src/mock-upstream). */
function benchStreamFrames(): Uint8Array[] {
  const plan: CompletionPlan = {
    choiceCount: 1,
    wordCount: ANSWER_SHAPE.chunkCount * ANSWER_SHAPE.tokensPerChunk,
    text: undefined,
    tokensPerChunk: ANSWER_SHAPE.tokensPerChunk,
    toolCall: undefined,
    finishReason: 'stop',
    completionTokensPerChoice: ANSWER_SHAPE.chunkCount * ANSWER_SHAPE.tokensPerChunk,
  };
  const script = buildStreamScript(plan, () => 'call_1');
  const head = chunkHead({ id: 'chatcmpl-mock-1', created: 1_795_760_372, model: BENCH_MODELS.fast });
  const text =
    renderEvents(head, [...script.opening, ...script.content, ...script.closing]) +
    `data: ${head}[],"usage":${JSON.stringify(usageOf(plan, 11))}}\n\ndata: [DONE]\n\n`;
  return [encoder.encode(text)];
}

/** Events in the benchmark's stream: role, 50 content chunks, finish, usage, [DONE]. */
const BENCH_STREAM_EVENTS = ANSWER_SHAPE.chunkCount + 4;

function contextFor(type: string, upstreamModel: string, publicModel: string): TranslationContext {
  return {
    provider: {
      id: type,
      name: type,
      type,
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: 'x',
      headers: {},
      timeouts: { connectMs: 1, firstByteMs: 1, idleMs: 1, totalMs: 1 },
      maxConnections: 1,
      options: {},
      policies: {},
      fromEnvironment: false,
    } as TranslationContext['provider'],
    upstreamModel,
    publicModel,
    completionId: 'chatcmpl-1',
    created: 1,
    generateId: (prefix) => `${prefix}1`,
    stream: true,
  };
}

/** Messages before pass-through: Anthropic events → chat chunks → Messages events, each serialised. */
function messagesTranslated(frames: Uint8Array[]): number {
  const decoder = new AnthropicStreamDecoder(contextFor('anthropic', 'claude-up', 'test/claude'));
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

/**
 * Chat through the translating decoder, as every OpenAI-compatible server that is not OpenAI is
 * read (Groq, Together, vLLM, Ollama…): each chunk parsed and checked, then written as the
 * stream writer does (stream-completion.ts): the upstream's text renamed where the chunk needs
 * nothing else, else conformed and serialised again.
 */
function chatTranslated(frames: Uint8Array[]): number {
  const decoder = new OpenAIStreamDecoder(contextFor('openai', 'gpt-up', 'test/gpt'));
  let written = 0;
  let usage = false;
  for (const frame of frames)
    for (const decoded of decoder.push(frame)) {
      if (decoded.type === 'chunk') written += sseChunk(decoded.chunk, decoded.json).length;
      else if (decoded.type === 'usage') usage = true;
    }
  decoder.end();
  if (!usage) throw new Error('the translated chat path missed the usage');
  return written;
}

/** Native: the bytes passed on (or, when the reader hides events, the events framed again). */
function native(support: NativeSupport, body: Record<string, unknown>, frames: Uint8Array[]): number {
  const sse = new SseDecoder();
  const reader = support.createUsageReader({ body, stream: true, clientHeaders: {} });
  const filter = reader.hides ? new HiddenEventFilter(reader.hides) : null;
  let written = 0;
  // As the socket write would take it: bytes as they are, a string encoded.
  const write = (out: Uint8Array | string) =>
    (written += typeof out === 'string' ? Buffer.byteLength(out) : out.byteLength);
  for (const frame of frames) {
    const events = sse.push(frame);
    for (const decoded of events) reader.event(decoded);
    write(filter ? filter.push(frame, events, sse.hasPartialEvent) : frame);
  }
  const last = sse.end();
  for (const decoded of last) reader.event(decoded);
  if (filter) write(filter.end(last));
  reader.end();
  if (!reader.complete || !reader.usage) throw new Error('the native reader missed the usage');
  return written;
}

function microsPerChunk(run: () => number, deltas: number, rounds: number): number {
  run();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    for (let repeat = 0; repeat < 5; repeat++) run();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / (5 * deltas));
  }
  return median(samples);
}

export function measureStreamChunkCost(deltas: number, rounds: number): StreamChunkCost {
  const anthropic = anthropicFrames(deltas);
  const chat = chatFrames(deltas);
  const provider = contextFor('openai', 'gpt-up', 'test/gpt').provider;
  const openai = openAIAdapter.native!('openai-chat', { ...provider, options: { chat_pass_through: true } }, 'gpt-up')!;
  const asked = { stream_options: { include_usage: true } };
  const bench = benchStreamFrames();
  // As many of its streams a round as the other paths' deltas, so a round is long enough to time.
  const benchStreams = Math.max(1, Math.round(deltas / BENCH_STREAM_EVENTS));
  const benchRun = () => {
    let written = 0;
    for (let stream = 0; stream < benchStreams; stream++) written += chatTranslated(bench);
    return written;
  };
  // First, while the code has seen no other stream's shapes (the gateway under the benchmark sees
  // only these), and after ~2,000 streams of warm-up: with a few hundred a fresh process still
  // measured 22-47 µs a stream against 14 once its code was optimised (2026-11-27).
  for (let warm = 0; warm < 60; warm++) benchRun();
  const chatBenchStream = microsPerChunk(benchRun, benchStreams * BENCH_STREAM_EVENTS, rounds);
  return {
    deltas,
    rounds,
    messagesTranslated: microsPerChunk(() => messagesTranslated(anthropic), deltas, rounds),
    messagesNative: microsPerChunk(() => native(anthropicNative, {}, anthropic), deltas, rounds),
    chatTranslated: microsPerChunk(() => chatTranslated(chat), deltas, rounds),
    chatNative: microsPerChunk(() => native(openai, asked, chat), deltas, rounds),
    chatNativeUsageHidden: microsPerChunk(() => native(openai, {}, chat), deltas, rounds),
    chatBenchStream,
  };
}

export function renderStreamChunkCost(cost: StreamChunkCost): string {
  const row = (label: string, translated: number, native: number) =>
    `${label.padEnd(40)} ${translated.toFixed(2).padStart(10)} ${native.toFixed(2).padStart(10)} ${(translated / native).toFixed(1).padStart(6)} ×`;
  return [
    `CPU per streamed chunk, in process (${cost.deltas} deltas a stream, median of ${cost.rounds} rounds), µs:`,
    `${''.padEnd(40)} ${'translated'.padStart(10)} ${'native'.padStart(10)}`,
    row('Messages → Anthropic', cost.messagesTranslated, cost.messagesNative),
    row('chat → OpenAI (client asked usage)', cost.chatTranslated, cost.chatNative),
    row('chat → OpenAI (usage chunk hidden)', cost.chatTranslated, cost.chatNativeUsageHidden),
    `${"chat, the benchmark's stream, one read".padEnd(40)} ${cost.chatBenchStream.toFixed(2).padStart(10)} ${'—'.padStart(10)}` +
      `   (${(cost.chatBenchStream * BENCH_STREAM_EVENTS).toFixed(1)} µs a stream)`,
  ].join('\n');
}
