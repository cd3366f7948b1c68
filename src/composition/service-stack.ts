export interface StackListener {
  /** After `name` started; throwing here fails the start-up at that point (tests inject failures so). */
  started?(name: string): void | Promise<void>;
  /** After `name` was stopped (or its stop threw). */
  stopped?(name: string): void;
}

/**
 * What the composition root has started, so it can stop it: each service is started through
 * `start`, which records how to stop it; `stop` stops them in reverse order (a service stops before
 * the ones it was built on). `build` runs a start-up and, when it throws half-way, stops whatever
 * had started before rethrowing, so a failed start leaves no timer, socket or connection behind.
 */
export class ServiceStack {
  private readonly stops: { name: string; stop: () => unknown }[] = [];
  private stopping: Promise<void> | undefined;

  /** `onStopError` hears a stop that threw (the others still run); `listener` hears each start and stop. */
  constructor(
    private readonly onStopError: (name: string, error: unknown) => void = () => undefined,
    private readonly listener: StackListener = {},
  ) {}

  /** Starts one service; its `stop` runs, in reverse order, when the stack stops. */
  async start<T>(name: string, start: () => T | Promise<T>, stop: (service: T) => unknown): Promise<T> {
    const service = await start();
    this.stops.push({ name, stop: () => stop(service) });
    await this.listener.started?.(name);
    return service;
  }

  /** Something already running (opened by a caller, or a plain value) whose stop this stack owns. */
  async adopt<T>(name: string, service: T, stop: (service: T) => unknown): Promise<T> {
    return this.start(name, () => service, stop);
  }

  /** Names of the services started, in start order (tests and the start-up log). */
  get started(): string[] {
    return this.stops.map((entry) => entry.name);
  }

  /** Stops everything started, last first; a second call waits for the first. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const { name, stop } of this.stops.splice(0).reverse()) {
        try {
          await stop();
        } catch (error) {
          this.onStopError(name, error);
        }
        this.listener.stopped?.(name);
      }
    })();
    return this.stopping;
  }

  /** Runs a start-up; if it throws, everything it had started is stopped and the error rethrown. */
  async build<T>(startUp: (stack: this) => Promise<T>): Promise<T> {
    try {
      return await startUp(this);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }
}
