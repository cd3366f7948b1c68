/** The key spend alerts' table (migration 0730), merged into the store's Database type. Money: nano-USD. */
interface KeySpendAlertsTable {
  key_id: string;
  user_id: string;
  /** Thresholds per UTC period; null: none for that period. */
  daily_nanos: number | null;
  weekly_nanos: number | null;
  monthly_nanos: number | null;
  /** Start (epoch ms) of the period the threshold last fired for: it fires again in a later period only. */
  daily_fired_for: number | null;
  weekly_fired_for: number | null;
  monthly_fired_for: number | null;
  /** 1: mail the account's address when a threshold is reached. */
  email: number;
  webhook_url: string | null;
  webhook_secret: string | null;
  updated_at: number;
}

declare module '../store/schema.js' {
  interface Database {
    key_spend_alerts: KeySpendAlertsTable;
  }
}

export {};
