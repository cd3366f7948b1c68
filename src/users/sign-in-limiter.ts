import { createHash } from 'node:crypto';
import type { SignInLimitSettings } from './auth-settings.js';

/** One key's failures: how many in the current window and when the last one was. */
export interface FailureState {
  failures: number;
  lastAt: number;
}

export type SignInAdmission = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * Sign-in attempts per account and per client address (issue 16, finding 6). An attempt is
 * counted as a failure when it starts (so a burst of parallel guesses is counted before any is
 * answered) and taken back when it succeeds. A key with `threshold` failures is held back for
 * `base × 2^(failures − threshold)`, at most `max`, from its last failure; failures are forgotten
 * after `window` without one. A held-back attempt is refused without checking the password and is
 * not counted, so waiting out the hold always works.
 */
export interface SignInLimiter {
  begin(account: string, address: string): Promise<SignInAdmission>;
  /** The attempt signed in: the account starts afresh; the address's attempt was no failure. */
  succeeded(account: string, address: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a key with this state is still held back at `now` (0: not held). Pure. */
export function holdRemainingMs(
  state: FailureState | undefined,
  threshold: number,
  now: number,
  settings: SignInLimitSettings,
): number {
  if (!state || now - state.lastAt > settings.windowMs || state.failures < threshold) return 0;
  const exponent = Math.min(state.failures - threshold, 30);
  const hold = Math.min(settings.maxLockoutMs, settings.baseLockoutMs * 2 ** exponent);
  return Math.max(0, state.lastAt + hold - now);
}

/** An email as limits see it: a hash of its lower-cased form, so Redis holds no addresses. */
export function emailKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 40);
}

/**
 * Client addresses as limits see them: IPv4 as is (also when mapped into IPv6), IPv6 by its /64,
 * since one host usually holds a whole /64 and could otherwise change address per attempt.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (!ip.includes(':')) return ip;
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = ip.includes('::') ? 8 - headGroups.length - tailGroups.length : 0;
  const groups = [...headGroups, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** The limiter of one process (no REDIS_URL): the same rules, in a map. */
export class MemorySignInLimiter implements SignInLimiter {
  private readonly accounts = new Map<string, FailureState>();
  private readonly addresses = new Map<string, FailureState>();

  constructor(
    private readonly settings: SignInLimitSettings,
    private readonly now: () => number,
  ) {}

  async begin(account: string, address: string): Promise<SignInAdmission> {
    const now = this.now();
    this.prune(now);
    const retryAfterMs = Math.max(
      holdRemainingMs(this.fresh(this.accounts, account, now), this.settings.accountFailures, now, this.settings),
      holdRemainingMs(this.fresh(this.addresses, address, now), this.settings.addressFailures, now, this.settings),
    );
    if (retryAfterMs > 0) return { allowed: false, retryAfterMs };
    this.count(this.accounts, account, now);
    this.count(this.addresses, address, now);
    return { allowed: true };
  }

  async succeeded(account: string, address: string): Promise<void> {
    this.accounts.delete(account);
    const state = this.addresses.get(address);
    if (state && state.failures > 0) state.failures -= 1;
  }

  async close(): Promise<void> {
    this.accounts.clear();
    this.addresses.clear();
  }

  private fresh(map: Map<string, FailureState>, key: string, now: number): FailureState | undefined {
    const state = map.get(key);
    if (state && now - state.lastAt > this.settings.windowMs) {
      map.delete(key);
      return undefined;
    }
    return state;
  }

  private count(map: Map<string, FailureState>, key: string, now: number): void {
    const state = map.get(key);
    if (state) {
      state.failures += 1;
      state.lastAt = now;
    } else map.set(key, { failures: 1, lastAt: now });
  }

  /** Keeps memory bounded under a spray of made-up accounts: forgotten states are dropped. */
  private prune(now: number): void {
    if (this.accounts.size + this.addresses.size < 10_000) return;
    for (const map of [this.accounts, this.addresses])
      for (const [key, state] of map) if (now - state.lastAt > this.settings.windowMs) map.delete(key);
  }
}
