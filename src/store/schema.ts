/**
 * The Kysely database type. Each feature declares its own tables by merging into this
 * interface from its own folder (`declare module '../../store/schema.js'`), so adding a table
 * never touches another feature's file. Conventions that keep SQLite and PostgreSQL alike:
 * times are epoch milliseconds (BIGINT), booleans are 0/1 integers, JSON is TEXT, money is
 * integer micro-units.
 */
import type { Generated } from 'kysely';

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  description: string;
  key_hash: string;
  /** The first and last characters shown in the masked key: sk-gw-ab12…wxyz. */
  key_start: string;
  key_end: string;
  routing_mode: string;
  /** JSON array of model ids or globs; null means every model. */
  allowed_models: string | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  monthly_quota_micros: number | null;
  credit_limit_micros: number | null;
  expires_at: number | null;
  disabled: number;
  template_id: string | null;
  /** JSON array of {model_id, priority}. */
  default_models: string | null;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** After a rotation: the hash of the secret it replaced, which works until previous_key_expires_at (migration 0620). */
  previous_key_hash?: string | null;
  previous_key_expires_at?: number | null;
  /** 1: every answer made with the key includes usage.cost (migration 0730). */
  include_cost?: number;
  /** 1: the key's request and answer bodies are kept (request_contents, migration 0720); off by default. */
  log_content?: number;
}

/** Change feed for API keys: other instances poll it to drop cached keys within a second. */
interface KeyChangesTable {
  id: Generated<number>;
  key_hash: string;
  changed_at: number;
}

interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface Database {
  api_keys: ApiKeysTable;
  key_changes: KeyChangesTable;
  settings: SettingsTable;
}
