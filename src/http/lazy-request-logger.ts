import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions as ChildOptions } from 'pino';

/**
 * Fastify gives every request a child logger bound to its request id (`request.log`). Nearly no
 * request logs anything (request logging is off; errors and warnings are the exceptions), yet the
 * pino child, with its serialised bindings, was made for each. This one makes the pino child on
 * the first call that logs, and logs through it from then on: the lines are the same.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  fatal(...args: unknown[]): void {
    (this.real.fatal as (...a: unknown[]) => void)(...args);
  }

  error(...args: unknown[]): void {
    (this.real.error as (...a: unknown[]) => void)(...args);
  }

  warn(...args: unknown[]): void {
    (this.real.warn as (...a: unknown[]) => void)(...args);
  }

  info(...args: unknown[]): void {
    (this.real.info as (...a: unknown[]) => void)(...args);
  }

  debug(...args: unknown[]): void {
    (this.real.debug as (...a: unknown[]) => void)(...args);
  }

  trace(...args: unknown[]): void {
    (this.real.trace as (...a: unknown[]) => void)(...args);
  }

  silent(...args: unknown[]): void {
    (this.real.silent as (...a: unknown[]) => void)(...args);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory: each request's logger, made only when the request logs. The
 * class has every method of FastifyBaseLogger; its pino method overloads are typed by the cast.
 */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
