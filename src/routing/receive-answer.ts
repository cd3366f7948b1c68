import type { ProviderConfig } from '../config/gateway-config.js';
import type { GatewayError } from '../shared/errors.js';
import { InternalError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import type { UpstreamHttpRequest } from '../providers/provider-adapter.js';
import type { UpstreamClient, UpstreamResponse } from '../providers/upstream-client.js';
import type { AttemptRecord } from './completion-outcome.js';
import { parseRetryAfterMs } from './retry-policy.js';

/**
 * One attempt's upstream call, as the chat attempt and the native attempt make it: where it goes,
 * where its status and the upstream's `retry-after` are recorded (recordAttempt's record and
 * setter), and how a refusal becomes our error (the adapter's mapError with the attempt's context).
 */
export interface AnswerCall<Context> {
  upstream: UpstreamClient;
  provider: ProviderConfig;
  signal: AbortSignal;
  clock: Clock;
  attempt: AttemptRecord;
  setRetryAfter: (ms: number | null) => void;
  adapter: {
    mapError(
      status: number,
      body: Uint8Array,
      headers: Record<string, string | string[] | undefined>,
      context: Context,
    ): GatewayError;
  };
  context: Context;
}

/**
 * Sends a whole (non-stream) request and returns the answer's bytes when it is 2xx. Otherwise
 * the upstream's `retry-after` goes to the attempt and the adapter's error for the refusal is
 * thrown (its body read whole; empty when it broke off, see sendWhole). Nothing has reached the
 * client yet, so whatever the caller does with the bytes may still fall back.
 */
export async function receiveWholeAnswer<Context>(
  call: AnswerCall<Context>,
  upstreamRequest: UpstreamHttpRequest,
): Promise<Uint8Array> {
  const whole = await call.upstream.sendWhole(call.provider, upstreamRequest, call.signal);
  call.attempt.status = whole.statusCode;
  if (whole.statusCode < 200 || whole.statusCode >= 300) {
    call.setRetryAfter(parseRetryAfterMs(whole.headers, call.clock.now()));
    throw call.adapter.mapError(whole.statusCode, whole.bytes, whole.headers, call.context);
  }
  return whole.bytes;
}

/**
 * Sends a stream request and returns the opened answer, its body still to be read, when it is
 * 2xx. A refusal is handled as receiveWholeAnswer handles it: its body is read whole (empty when
 * it breaks off), the `retry-after` recorded, the adapter's error thrown.
 */
export async function openStreamedAnswer<Context>(
  call: AnswerCall<Context>,
  upstreamRequest: UpstreamHttpRequest,
): Promise<UpstreamResponse> {
  const response = await call.upstream.send(call.provider, upstreamRequest, call.signal);
  call.attempt.status = response.statusCode;
  if (response.statusCode < 200 || response.statusCode >= 300) {
    call.setRetryAfter(parseRetryAfterMs(response.headers, call.clock.now()));
    const errorBody = new Uint8Array(await response.body.arrayBuffer().catch(() => new ArrayBuffer(0)));
    throw call.adapter.mapError(response.statusCode, errorBody, response.headers, call.context);
  }
  return response;
}

/**
 * The body of an opened stream (chat or native), still to be read. A whole answer was read inside
 * its attempt and carries none: reading one as a stream is the gateway's own mistake.
 */
export function streamBody(opened: { response?: UpstreamResponse }): UpstreamResponse['body'] {
  if (!opened.response) throw new InternalError('A whole answer was read as a stream.');
  return opened.response.body;
}
