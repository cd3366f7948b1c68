import type { GatewayConfig, ProviderConfig } from '../config/gateway-config.js';

/**
 * The config in service. A reload replaces it whole; whatever reloads (providers, models, the
 * `routing:` section) is read through `current` when it is used, never copied at start-up, so
 * nothing keeps serving the file it was built from. Settings that need a restart (server, database,
 * Redis, the other sections) are read once at start-up from the same object.
 */
export class LiveConfig {
  private config: GatewayConfig;

  constructor(initial: GatewayConfig) {
    this.config = initial;
  }

  get current(): GatewayConfig {
    return this.config;
  }

  /** The providers in service now (the account API lists them per request). */
  readonly providers = (): readonly ProviderConfig[] => this.config.providers;

  replace(next: GatewayConfig): void {
    this.config = next;
  }
}
