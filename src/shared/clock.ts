/** Time, injected so tests can move it (key expiry, windows, circuit breakers). */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
