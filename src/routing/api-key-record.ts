export type RoutingMode = 'code' | 'manual';

export interface DefaultModel {
  model_id: string;
  priority: number;
}

/**
 * An API key as the hot path sees it: parsed once when keys/ loads it into the cache. It lives in
 * routing, its first reader (models allowed, routing mode, template, default models), so the
 * gateway, routing and metering read it without importing the keys domain above them.
 */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  keyHash: string;
  routingMode: RoutingMode;
  allowedModels: string[] | null;
  /** Compiled allowed_models globs. */
  allowedMatchers: RegExp[] | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
  monthlyQuotaMicros: number | null;
  creditLimitMicros: number | null;
  expiresAt: number | null;
  disabled: boolean;
  templateId: string | null;
  defaultModels: DefaultModel[];
  revoked: boolean;
  /** Set when the presented secret is the key's previous one after a rotation: it works until then (epoch ms). */
  secretExpiresAt?: number | null;
  /** Every answer made with the key includes usage.cost (the key's include_cost setting). */
  includeCost?: boolean;
  /** The key keeps its request and answer bodies (content logging, opt-in). */
  logContent?: boolean;
}

/** `openai/*` matches every model id starting with `openai/`; `*` alone matches all. */
export function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

export function isModelAllowed(record: ApiKeyRecord, modelId: string): boolean {
  return record.allowedMatchers === null || record.allowedMatchers.some((matcher) => matcher.test(modelId));
}
