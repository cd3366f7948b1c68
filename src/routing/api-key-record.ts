import type { ApiKeysTable } from '../store/schema.js';

export type RoutingMode = 'code' | 'manual';

export interface DefaultModel {
  model_id: string;
  priority: number;
}

/** An API key as the hot path sees it: parsed once when loaded into the cache. */
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
}

export function toApiKeyRecord(row: ApiKeysTable): ApiKeyRecord {
  const allowedModels = row.allowed_models ? (JSON.parse(row.allowed_models) as string[]) : null;
  const defaultModels = row.default_models ? (JSON.parse(row.default_models) as DefaultModel[]) : [];
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    keyHash: row.key_hash,
    routingMode: row.routing_mode === 'manual' ? 'manual' : 'code',
    allowedModels,
    allowedMatchers: allowedModels ? allowedModels.map(globToRegExp) : null,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    monthlyQuotaMicros: row.monthly_quota_micros,
    creditLimitMicros: row.credit_limit_micros,
    expiresAt: row.expires_at,
    disabled: row.disabled === 1,
    templateId: row.template_id,
    defaultModels: [...defaultModels].sort((a, b) => a.priority - b.priority),
    revoked: row.revoked_at !== null,
  };
}

/** `openai/*` matches every model id starting with `openai/`; `*` alone matches all. */
export function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

export function isModelAllowed(record: ApiKeyRecord, modelId: string): boolean {
  return record.allowedMatchers === null || record.allowedMatchers.some((matcher) => matcher.test(modelId));
}
