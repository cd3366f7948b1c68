/** The balance alerts' tables (migration 0710), merged into the store's Database type. Money: nano-USD. */
interface BalanceAlertsTable {
  user_id: string;
  threshold_nanos: number;
  /** 1: mail the account's address when the balance falls below the threshold. */
  email: number;
  webhook_url: string | null;
  /** HMAC-SHA256 key of the webhook's signature; made by the gateway, shown to the user once. */
  webhook_secret: string | null;
  /** 1 while the balance is at or above the threshold: the next fall below fires, once. */
  armed: number;
  updated_at: number;
}

interface AlertDeliveriesTable {
  id: string;
  user_id: string;
  /** email or webhook */
  channel: string;
  /** balance_below, key_spend_daily, key_spend_weekly, key_spend_monthly */
  event: string;
  /** The key a key spend alert was about (migration 0730); null for the balance alert. */
  key_id: string | null;
  /** pending, delivered, failed, skipped */
  status: string;
  attempts: number;
  response_status: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

declare module '../store/schema.js' {
  interface Database {
    balance_alerts: BalanceAlertsTable;
    alert_deliveries: AlertDeliveriesTable;
  }
}

export {};
