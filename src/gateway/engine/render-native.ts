import { SseDecoder } from '../../providers/framing/sse-decoder.js';
import { toUpstreamError } from '../../providers/upstream-client.js';
import { guardUpstreamError } from '../../providers/provider-secrets.js';
import type { Clock } from '../../shared/clock.js';
import { GatewayError, UpstreamError } from '../../shared/errors.js';
import { SSE_HEADERS, clientStalled, waitForDrain } from '../sse.js';
import type { OpenedNative } from './open-native.js';
import type { EngineRun } from './request-engine.js';

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
    reply.headers(headers).header('content-type', 'application/json').send(answer);
    return;
  }
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, { ...SSE_HEADERS, 'x-request-id': run.request.id, ...headers });
  raw.flushHeaders();
  const sse = new SseDecoder();
  const body = opened.response.body;
  try {
    for await (const chunk of body) {
      const bytes = chunk as Uint8Array;
      if (outcome.timeToFirstTokenMs === null) outcome.timeToFirstTokenMs = options.clock.now() - outcome.startedAt;
      for (const event of sse.push(bytes)) reader.event(event);
      if (!raw.write(bytes) && (await waitForDrain(raw, options.writeStallMs)) === 'stalled')
        throw clientStalled(options.writeStallMs);
    }
    for (const event of sse.end()) reader.event(event);
    reader.end();
    if (reader.errorCode !== null) {
      // The upstream's error event already went to the client in its own words.
      outcome.status = 502;
      outcome.errorCode = 'upstream_stream_error';
    } else if (!reader.complete) {
      throw new UpstreamError(
        502,
        'upstream_stream_interrupted',
        `${opened.candidate.provider.name} closed the stream before the answer was complete.`,
      );
    }
    raw.end();
  } catch (error) {
    const gatewayError = guardUpstreamError(
      error instanceof GatewayError ? error : toUpstreamError(error, opened.candidate.provider, run.controller.signal),
      opened.candidate.provider,
    );
    outcome.status = gatewayError.status;
    outcome.errorCode = gatewayError.code;
    if (!outcome.clientAborted && !raw.destroyed) raw.end(options.errorEvent(gatewayError));
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
