import type { ApiKeysTable } from '../store/schema.js';
import { globToRegExp, type ApiKeyRecord, type DefaultModel } from '../routing/api-key-record.js';

/**
 * A stored api_keys row → the record the hot path reads (allowed-model globs compiled once).
 * `presentedHash`: the hash it was found by; the previous secret of a rotated key carries the end
 * of its grace period.
 */
export function toApiKeyRecord(row: ApiKeysTable, presentedHash: string = row.key_hash): ApiKeyRecord {
  const previous = row.previous_key_hash != null && presentedHash === row.previous_key_hash;
  const allowedModels = row.allowed_models ? (JSON.parse(row.allowed_models) as string[]) : null;
  const defaultModels = row.default_models ? (JSON.parse(row.default_models) as DefaultModel[]) : [];
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    keyHash: presentedHash,
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
    secretExpiresAt: previous ? (row.previous_key_expires_at ?? 0) : null,
    includeCost: Number(row.include_cost ?? 0) === 1,
    logContent: row.log_content === 1,
  };
}
