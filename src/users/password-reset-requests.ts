import type { Logger } from 'pino';
import { GatewayError, RateLimitError } from '../shared/errors.js';
import type { Auth } from './create-auth.js';
import { withAuthContext } from './auth-async-context.js';
import { addressKey, emailKey, type SignInLimiter } from './sign-in-limiter.js';

/**
 * Asking for a password-reset link (issue 25, item 5). Two things the answer must not give away or
 * allow: whether the address has an account, and a mail bomb.
 *
 * - Rate limits per email and per client address, before anything else, for every address alike:
 *   `auth.password_reset_limits`, the sign-in limiter's rule (shared through Redis when there is one).
 * - Equal work: the answer is given once the limits are counted; looking the address up, writing the
 *   token and sending the mail run afterwards, in the background. An existing account used to answer
 *   measurably later (it wrote a token); now both answers take the same path.
 */
export class PasswordResetRequests {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly auth: Auth,
    private readonly limiter: SignInLimiter,
    private readonly logger: Logger,
  ) {}

  /** Throws 429 `too_many_password_resets` or 503 without a mailer; otherwise the link is on its way, if there is an account. */
  async request(email: string, clientIp: string): Promise<void> {
    // Read from better-auth's context, not auth.options: accounts may not be loaded yet (lazy-auth.ts).
    const canMail = await withAuthContext(this.auth, async (context) =>
      Boolean(context.options.emailAndPassword?.sendResetPassword),
    );
    if (!canMail)
      throw new GatewayError(
        503,
        'service_unavailable',
        'password_reset_unavailable',
        'Password reset is not available: this gateway has no mailer.',
      );
    // request.ip comes from X-Forwarded-For when server.trust_proxy says so: bound what a client can make a key of.
    const admission = await this.limiter.begin(emailKey(email), addressKey(clientIp).slice(0, 64));
    if (!admission.allowed) {
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      throw new RateLimitError(
        `Too many password-reset requests for this email or from your address. Try again in ${seconds} s.`,
        'too_many_password_resets',
        { 'retry-after': String(seconds) },
      );
    }
    const work = this.auth.api
      .requestPasswordReset({ body: { email } })
      .then(
        () => undefined,
        (error: unknown) => this.logger.error({ err: error }, 'password reset: could not issue a link'),
      )
      .finally(() => this.running.delete(work));
    this.running.add(work);
  }

  /** Waits for the links being issued, then closes the limiter. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.running]);
    await this.limiter.close();
  }
}
