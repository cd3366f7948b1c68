import type { Clock } from '../shared/clock.js';

/** Whether one endpoint may be tried now. */
export interface Admission {
  admitted: boolean;
  /** true when this attempt is the half-open probe after a cool-down. */
  probe: boolean;
  /** When refused: epoch ms at which the endpoint may be probed again. */
  retryAtMs: number | null;
}

/**
 * A passive circuit breaker per endpoint: it only learns from real requests. `failureThreshold`
 * failures in a row open it; while open, the endpoint is skipped; after `cooldownMs` one
 * request is let through as a probe (half-open). The probe's success closes the circuit, its
 * failure opens it for another cool-down. A probe that never reports (its request was
 * cancelled) stops blocking after another cool-down.
 */
export interface EndpointHealth {
  admit(key: string): Promise<Admission>;
  /**
   * The same admission, when this breaker knows it without waiting (it lives in memory): the
   * request path then makes no promise for it. Absent: ask admit().
   */
  admitNow?(key: string): Admission;
  recordSuccess(key: string): Promise<void>;
  recordFailure(key: string): Promise<void>;
  /** Reads the breakers' states without changing them (metrics); absent on test doubles. */
  inspect?(keys: string[]): Promise<BreakerState[]>;
  close(): Promise<void>;
}

export interface BreakerSettings {
  failureThreshold: number;
  cooldownMs: number;
}

/** The breaker's state for one endpoint; all zero is a closed, healthy circuit. */
export interface BreakerState {
  failures: number;
  /** Epoch ms until which the circuit is open; 0 when closed. Stays set while half-open. */
  openUntil: number;
  /** Epoch ms until which a half-open probe is in flight; 0 when none. */
  probeUntil: number;
}

export const CLOSED: BreakerState = { failures: 0, openUntil: 0, probeUntil: 0 };

/** What admitTransition answers for a closed circuit; shared, never changed. */
const ADMITTED: Admission = Object.freeze({ admitted: true, probe: false, retryAtMs: null });

/** Pure transitions, shared by the in-memory breaker and mirrored by the Redis script. */
function admitTransition(
  state: BreakerState,
  now: number,
  settings: BreakerSettings,
): { state: BreakerState; admission: Admission } {
  if (state.openUntil === 0) return { state, admission: { admitted: true, probe: false, retryAtMs: null } };
  if (now < state.openUntil) return { state, admission: { admitted: false, probe: false, retryAtMs: state.openUntil } };
  if (now < state.probeUntil)
    return { state, admission: { admitted: false, probe: false, retryAtMs: state.probeUntil } };
  return {
    state: { ...state, probeUntil: now + settings.cooldownMs },
    admission: { admitted: true, probe: true, retryAtMs: null },
  };
}

function failureTransition(state: BreakerState, now: number, settings: BreakerSettings): BreakerState {
  if (state.openUntil !== 0) return { failures: 0, openUntil: now + settings.cooldownMs, probeUntil: 0 };
  const failures = state.failures + 1;
  return failures >= settings.failureThreshold
    ? { failures: 0, openUntil: now + settings.cooldownMs, probeUntil: 0 }
    : { ...state, failures };
}

/** The state's name at a moment: open until the cool-down ends, then half-open until a probe closes it. */
export function breakerPhase(state: BreakerState, now: number): 'closed' | 'open' | 'half_open' {
  if (state.openUntil === 0) return 'closed';
  return now < state.openUntil ? 'open' : 'half_open';
}

/** One process's breakers, in memory (no REDIS_URL). */
export class MemoryEndpointHealth implements EndpointHealth {
  private readonly states = new Map<string, BreakerState>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly clock: Clock,
  ) {}

  async admit(key: string): Promise<Admission> {
    return this.admitNow(key);
  }

  admitNow(key: string): Admission {
    const known = this.states.get(key);
    // A closed circuit with no failures (nearly every request) is not stored: admitted as it is.
    if (known === undefined) return ADMITTED;
    const { state, admission } = admitTransition(known, this.clock.now(), this.settings);
    if (state.openUntil !== 0) this.states.set(key, state);
    return admission;
  }

  async recordSuccess(key: string): Promise<void> {
    this.states.delete(key);
  }

  async recordFailure(key: string): Promise<void> {
    this.states.set(key, failureTransition(this.states.get(key) ?? CLOSED, this.clock.now(), this.settings));
  }

  async inspect(keys: string[]): Promise<BreakerState[]> {
    return keys.map((key) => this.states.get(key) ?? CLOSED);
  }

  async close(): Promise<void> {}
}
