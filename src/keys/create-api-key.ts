import type { Store } from '../store/database.js';
import type { ApiKeysTable } from '../store/schema.js';
import type { IdGenerator } from '../shared/ids.js';
import { generateApiKey, hashApiKey, maskParts } from './api-key-format.js';
import { insertApiKey, recordKeyChange } from './api-key-repository.js';
import type { DefaultModel, RoutingMode } from '../routing/api-key-record.js';

export interface NewApiKey {
  userId: string;
  name: string;
  description?: string;
  routingMode?: RoutingMode;
  allowedModels?: string[] | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  monthlyQuotaMicros?: number | null;
  creditLimitMicros?: number | null;
  expiresAt?: number | null;
  templateId?: string | null;
  defaultModels?: DefaultModel[] | null;
  /** Every answer made with the key includes usage.cost. */
  includeCost?: boolean;
  /** Keep the key's request and answer bodies (content logging); off by default. */
  logContent?: boolean;
}

/** Stores a new key (its hash only) and returns the row and the full key, which is never kept. */
export async function createApiKey(
  store: Store,
  ids: IdGenerator,
  now: number,
  input: NewApiKey,
): Promise<{ row: ApiKeysTable; fullKey: string }> {
  const fullKey = generateApiKey();
  const { start, end } = maskParts(fullKey);
  const row: ApiKeysTable = {
    id: ids.next('key_'),
    user_id: input.userId,
    name: input.name,
    description: input.description ?? '',
    key_hash: hashApiKey(fullKey),
    key_start: start,
    key_end: end,
    routing_mode: input.routingMode ?? 'code',
    allowed_models: input.allowedModels ? JSON.stringify(input.allowedModels) : null,
    rpm_limit: input.rpmLimit ?? null,
    tpm_limit: input.tpmLimit ?? null,
    monthly_quota_micros: input.monthlyQuotaMicros ?? null,
    credit_limit_micros: input.creditLimitMicros ?? null,
    expires_at: input.expiresAt ?? null,
    disabled: 0,
    template_id: input.templateId ?? null,
    default_models: input.defaultModels && input.defaultModels.length > 0 ? JSON.stringify(input.defaultModels) : null,
    created_at: now,
    updated_at: now,
    last_used_at: null,
    revoked_at: null,
    include_cost: input.includeCost ? 1 : 0,
    log_content: input.logContent ? 1 : 0,
  };
  await store.db.transaction().execute(async (transaction) => {
    await insertApiKey(transaction, row);
    // A negative cache entry for this hash elsewhere must not outlive the key's creation.
    await recordKeyChange(transaction, row.key_hash, now);
  });
  return { row, fullKey };
}
