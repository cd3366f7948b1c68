import { SseDecoder } from '../../providers/framing/sse-decoder.js';
import { toUpstreamError } from '../../providers/upstream-client.js';
import { guardUpstreamError } from '../../providers/provider-secrets.js';
import { QuietEnd, bodyAfterEnd, readBody } from '../../providers/read-body.js';
import type { Clock } from '../../shared/clock.js';
import { GatewayError, UpstreamError } from '../../shared/errors.js';
import { streamBody } from '../../routing/receive-answer.js';
import { clientStalled, openSseStream, waitForDrain } from '../sse.js';
import type { OpenedNative } from './open-native.js';
import type { EngineRun } from './request-engine.js';
import type { Usage } from '../../shared/openai-types.js';
import { copyCost } from './answer-cost.js';
import { NativeStreamCost } from './native-stream-cost.js';
import { HiddenEventFilter } from './hidden-event-filter.js';

export interface NativeRenderOptions {
  clock: Clock;
  writeStallMs?: number;
  /** The API's own error event, ending a stream that failed after it started. */
  errorEvent(error: GatewayError): string;
}

/**
 * Sends a native answer back as the upstream's bytes. A stream's bytes are written as they come;
 * the SSE framing is decoded only to hand the usage reader its events (most are never parsed).
 * Usage lands on the outcome once, at the end, whatever way the stream ends: metering charges
 * what the upstream reported, or estimates a stream cut before any report.
 */
export async function renderNative(
  opened: OpenedNative,
  run: EngineRun,
  headers: Record<string, string>,
  options: NativeRenderOptions,
): Promise<void> {
  const { outcome, reply } = run;
  const { reader } = opened;
  if (opened.bytes) {
    outcome.usage = reader.usage;
    outcome.outputCharacters = reader.outputCharacters;
    outcome.timeToFirstTokenMs = options.clock.now() - outcome.startedAt;
    // A whole answer names the gateway's model, as every other answer does (a stream's events pass untouched).
    const answer = JSON.parse(Buffer.from(opened.bytes).toString('utf8')) as Record<string, unknown>;
    if (typeof answer.model === 'string') answer.model = opened.candidate.model.id;
    if (run.costIncluded) addCost(answer, run.answerUsage(outcome.usage));
    run.finish();
    reply.headers(headers).header('content-type', 'application/json').send(answer);
    return;
  }
  const body = streamBody(opened);
  const raw = openSseStream(reply, run.request.id, headers);
  const sse = new SseDecoder();
  // Asked for the cost: events are written again so the final usage event can carry it. Else the
  // bytes go out as received, less any event the reader hides (HiddenEventFilter); none is parsed.
  let cost = null as NativeStreamCost | null;
  const filter = !run.costIncluded && reader.hides ? new HiddenEventFilter(reader.hides) : null;
  const price = () => run.answerUsage((outcome.usage = reader.usage));
  // The upstream's own end marker (chat's [DONE], Anthropic's message_stop, the Responses final
  // event) was read: the client's answer ends, with every
  // read that came with it (the same socket read, or reads buffered while a write waited for the
  // client's drain), at the upstream's end or at the end of that turn of the event loop, whichever
  // comes first; an upstream that keeps the connection open after it does not hold the client.
  let finishing = false;
  // The client's answer was ended: later reads are read to the body's end and not written.
  let ended = false;
  const endAfterDone = () => {
    if (ended) return;
    ended = true;
    // What the filter or the cost writer held (the start of an event after [DONE]) goes out.
    raw.end(filter ? filter.end([]) : (cost?.end(reader.errorCode === null) ?? ''));
  };
  // Gemini has no end marker: after a chunk that finished every candidate, a body with nothing more
  // to say for a grace is dropped (QuietEnd), and the stream ends as at the body's end.
  let quiet = null as QuietEnd | null;
  const endIfFinished = () => {
    if (reader.endsIfQuiet) (quiet ??= new QuietEnd(body)).arm();
    if (reader.finished && !finishing) {
      finishing = true;
      // A final event that says the answer failed (response.failed) is the upstream's error, as at a body's end.
      if (reader.errorCode !== null) {
        outcome.status = 502;
        outcome.errorCode = 'upstream_stream_error';
      }
      setImmediate(endAfterDone);
      // Read on to the body's end, or drop it after a grace: metering settles (and the client's
      // end, which waits for the settlement, goes out) only once this render returns.
      bodyAfterEnd(body);
    }
  };
  const drained = (result: 'drained' | 'closed' | 'stalled') => {
    if (result === 'stalled') throw clientStalled(options.writeStallMs);
    endIfFinished();
  };
  try {
    // Listeners, not `for await` (no promise per read): a write the client must drain first pauses the body.
    const reading = readBody(body, (chunk) => {
      // Read on to the body's end rather than stop (which destroys it with an AbortError).
      if (ended) return;
      quiet?.disarm();
      // An upstream that frames the events its own way (Bedrock) is re-framed as the API's SSE first.
      const bytes = opened.transcoder ? Buffer.from(opened.transcoder.push(chunk)) : chunk;
      if (outcome.timeToFirstTokenMs === null) outcome.timeToFirstTokenMs = options.clock.now() - outcome.startedAt;
      if (run.costIncluded && !cost)
        cost = new NativeStreamCost(opened.api, price, Buffer.from(bytes).includes('\r\n') ? '\r\n' : '\n');
      const events = sse.push(bytes);
      let text = '';
      for (const event of events) {
        reader.event(event);
        if (cost) text += cost.push(event);
      }
      const out = cost ? text : filter ? filter.push(bytes, events, sse.hasPartialEvent) : bytes;
      // After the end marker no drain is waited for: the answer's end follows within this turn.
      if (finishing) {
        if (out.length > 0) raw.write(out);
        return;
      }
      if (out.length > 0 && !raw.write(out)) return waitForDrain(raw, options.writeStallMs).then(drained);
      endIfFinished();
    });
    try {
      await reading;
    } catch (error) {
      // Dropped a grace after Gemini's last chunk, or an upstream error after it: the answer was
      // complete and ends as at the body's end (as chat's does after [DONE]). A client that left,
      // or stalled, is not that.
      const afterLast =
        quiet?.dropped === true ||
        (reader.endsIfQuiet === true && !(error instanceof GatewayError) && !outcome.clientAborted);
      if (!afterLast) throw error;
    }
    if (finishing) return endAfterDone();
    let tail = '';
    opened.transcoder?.end();
    const last = sse.end();
    for (const event of last) {
      reader.event(event);
      if (cost) tail += cost.push(event);
    }
    if (filter) {
      const held = filter.end(last);
      if (held.length > 0) raw.write(held);
    }
    reader.end();
    if (reader.errorCode !== null) {
      // The upstream's error event already went to the client in its own words.
      outcome.status = 502;
      outcome.errorCode = 'upstream_stream_error';
    } else if (!reader.complete) {
      if (tail || cost) raw.write(tail + (cost?.end(false) ?? ''));
      throw new UpstreamError(
        502,
        'upstream_stream_interrupted',
        `${opened.candidate.provider.name} closed the stream before the answer was complete.`,
      );
    }
    raw.end(tail + (cost?.end(reader.errorCode === null) ?? ''));
  } catch (error) {
    // The answer was complete; what the upstream did after its end is no failure of this request.
    if (finishing) return endAfterDone();
    const gatewayError = guardUpstreamError(
      error instanceof GatewayError ? error : toUpstreamError(error, opened.candidate.provider, run.controller.signal),
      opened.candidate.provider,
    );
    outcome.status = gatewayError.status;
    outcome.errorCode = gatewayError.code;
    if (!outcome.clientAborted && !raw.destroyed) raw.end((cost?.end(false) ?? '') + options.errorEvent(gatewayError));
    else raw.destroy();
  } finally {
    // Whatever was reported before the end counts (a cut stream is charged what the upstream said so far).
    try {
      reader.end();
    } catch {
      // A half event held back is no usage report.
    }
    outcome.usage = reader.usage;
    outcome.outputCharacters = reader.outputCharacters;
    if (!body.destroyed) body.destroy();
  }
}

/**
 * A native whole answer's cost goes into its own usage object (`usage`, or Gemini's
 * `usageMetadata`), beside the upstream's token fields (streams: NativeStreamCost).
 */
function addCost(answer: Record<string, unknown>, usage: Usage | null): void {
  const field = 'usageMetadata' in answer && !('usage' in answer) ? 'usageMetadata' : 'usage';
  const current = answer[field];
  const own = current && typeof current === 'object' ? (current as Record<string, unknown>) : {};
  answer[field] = copyCost(own, usage);
}
