import { UpstreamError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';

/**
 * One deadline for a whole chat request: every attempt, every wait between attempts and the
 * streamed answer. When it passes, the request's controller aborts with a 504, which ends an
 * upstream call in flight, a backoff wait, or a stream (with an error event).
 */
export class RequestDeadline {
  private readonly timer: NodeJS.Timeout;
  readonly endsAt: number;

  constructor(
    controller: AbortController,
    readonly timeoutMs: number,
    private readonly clock: Clock,
  ) {
    this.endsAt = clock.now() + timeoutMs;
    this.timer = setTimeout(() => {
      controller.abort(
        new UpstreamError(
          504,
          'upstream_timeout',
          `No provider finished within the request deadline of ${timeoutMs} ms.`,
        ),
      );
    }, timeoutMs);
    this.timer.unref();
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - this.clock.now());
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}
