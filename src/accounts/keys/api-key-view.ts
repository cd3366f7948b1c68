import { unitsToDecimal } from '../../shared/decimal.js';
import type { ApiKeysTable } from '../../store/schema.js';
import type { DefaultModel } from '../../routing/api-key-record.js';
import { maskedKey } from '../../keys/api-key-format.js';
import type { ApiKeyView } from './api-key-schemas.js';
import type { KeySpendView } from '../../keys/key-spend-view.js';

function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : new Date(epochMs).toISOString();
}

/** Micro-USD → USD for JSON. Exact: six decimals survive the trip through a double. */
function usd(micros: number | null): number | null {
  return micros === null ? null : Number(unitsToDecimal(micros, 6));
}

function keyStatus(row: ApiKeysTable, now: number): ApiKeyView['status'] {
  if (row.disabled === 1) return 'disabled';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

/** A stored key as the account API shows it: masked, never the full key (which is not stored). */
export function toApiKeyView(row: ApiKeysTable, spend: KeySpendView, now: number): ApiKeyView {
  return {
    key_id: row.id,
    name: row.name,
    description: row.description,
    masked_key: maskedKey(row.key_start, row.key_end),
    status: keyStatus(row, now),
    disabled: row.disabled === 1,
    routing_mode: row.routing_mode === 'manual' ? 'manual' : 'code',
    allowed_models: row.allowed_models ? (JSON.parse(row.allowed_models) as string[]) : null,
    template_id: row.template_id,
    default_models: row.default_models ? (JSON.parse(row.default_models) as DefaultModel[]) : [],
    rpm_limit: row.rpm_limit,
    tpm_limit: row.tpm_limit,
    monthly_quota: usd(row.monthly_quota_micros),
    credit_limit: usd(row.credit_limit_micros),
    include_cost: Number(row.include_cost ?? 0) === 1,
    spend_this_month: spend.thisMonthUsd,
    spend_total: spend.totalUsd,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    last_used_at: isoOrNull(row.last_used_at),
    expiration: isoOrNull(row.expires_at),
    previous_key_expiration:
      row.previous_key_expires_at != null && row.previous_key_expires_at > now
        ? new Date(row.previous_key_expires_at).toISOString()
        : null,
    log_content: row.log_content === 1,
  };
}
