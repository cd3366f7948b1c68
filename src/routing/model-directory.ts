import type { EndpointConfig, GatewayConfig, ModelConfig, ProviderConfig } from '../config/gateway-config.js';

export interface RouteCandidate {
  model: ModelConfig;
  endpoint: EndpointConfig;
  provider: ProviderConfig;
}

/**
 * The routable models: every configured model whose endpoints point at configured providers, then
 * the built-in catalog models configured providers serve (`catalogModels`; a config model with the
 * same id wins). Built at start-up and rebuilt on a config reload (replaceWith); lookups are by exact id.
 */
export class ModelDirectory {
  private readonly models = new Map<string, ModelConfig>();
  private readonly providers = new Map<string, ProviderConfig>();
  /** candidatesFor's answer per model, computed once (every request asks it); emptied by replaceWith. */
  private readonly ordered = new Map<ModelConfig, readonly RouteCandidate[]>();
  /** Goes up with every replaceWith, so what is derived from the directory knows to rebuild. */
  version = 0;

  constructor(config: Pick<GatewayConfig, 'models' | 'providers'>, catalogModels: ModelConfig[] = []) {
    for (const provider of config.providers) this.providers.set(provider.id, provider);
    for (const model of config.models) this.models.set(model.id, model);
    for (const model of catalogModels) if (!this.models.has(model.id)) this.models.set(model.id, model);
  }

  /** Takes over another directory's contents (a config reload): requests already routed keep their candidates. */
  replaceWith(next: ModelDirectory): void {
    this.models.clear();
    this.providers.clear();
    for (const [id, model] of next.models) this.models.set(id, model);
    for (const [id, provider] of next.providers) this.providers.set(id, provider);
    this.ordered.clear();
    this.version++;
  }

  get(modelId: string): ModelConfig | undefined {
    return this.models.get(modelId);
  }

  provider(providerId: string): ProviderConfig | undefined {
    return this.providers.get(providerId);
  }

  list(): ModelConfig[] {
    return [...this.models.values()];
  }

  listProviders(): ProviderConfig[] {
    return [...this.providers.values()];
  }

  /**
   * The endpoints of a model in preference order (priority, then cheaper first). Shared between
   * requests: callers filter or copy it, never change it.
   */
  candidatesFor(model: ModelConfig): readonly RouteCandidate[] {
    let ordered = this.ordered.get(model);
    if (!ordered) {
      ordered = this.order(model);
      this.ordered.set(model, ordered);
    }
    return ordered;
  }

  private order(model: ModelConfig): RouteCandidate[] {
    return [...model.endpoints]
      .sort(
        (a, b) =>
          a.priority - b.priority ||
          a.pricing.promptMicros + a.pricing.completionMicros - (b.pricing.promptMicros + b.pricing.completionMicros),
      )
      .flatMap((endpoint) => {
        const provider = this.providers.get(endpoint.providerId);
        return provider ? [{ model, endpoint, provider }] : [];
      });
  }
}
