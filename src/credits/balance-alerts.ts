import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { nanosToUsd } from '../metering/money.js';
import { alertChannels, deliverAlert, newWebhookSecret, runEvery, type AlertDeliveryDeps } from './alert-delivery.js';
import './balance-alert-schema.js';
import './credits-schema.js';

type Db = Kysely<Database>;

export interface BalanceAlert {
  thresholdNanos: number;
  email: boolean;
  webhookUrl: string | null;
  hasWebhookSecret: boolean;
  armed: boolean;
}

export async function getBalanceAlert(db: Db, userId: string): Promise<BalanceAlert | null> {
  const row = await db.selectFrom('balance_alerts').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (!row) return null;
  return {
    thresholdNanos: Number(row.threshold_nanos),
    email: Number(row.email) === 1,
    webhookUrl: row.webhook_url,
    hasWebhookSecret: row.webhook_secret !== null,
    armed: Number(row.armed) === 1,
  };
}

/**
 * Sets the user's alert, armed: a balance already under the new threshold fires at the next
 * check, once. A webhook gets a secret when it has none (or `rotateSecret`); the new secret is
 * returned, the only time it is shown.
 */
export async function setBalanceAlert(
  db: Db,
  userId: string,
  input: { thresholdNanos: number; email: boolean; webhookUrl: string | null; rotateSecret?: boolean },
  now: number,
): Promise<{ alert: BalanceAlert; newSecret: string | null }> {
  const existing = await db
    .selectFrom('balance_alerts')
    .select('webhook_secret')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const needsSecret = input.webhookUrl !== null && (!existing?.webhook_secret || input.rotateSecret === true);
  const newSecret = needsSecret ? newWebhookSecret() : null;
  const secret = input.webhookUrl === null ? null : (newSecret ?? existing?.webhook_secret ?? null);
  const values = {
    threshold_nanos: input.thresholdNanos,
    email: input.email ? 1 : 0,
    webhook_url: input.webhookUrl,
    webhook_secret: secret,
    armed: 1,
    updated_at: now,
  };
  await db
    .insertInto('balance_alerts')
    .values({ user_id: userId, ...values })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values))
    .execute();
  return { alert: (await getBalanceAlert(db, userId))!, newSecret };
}

export async function deleteBalanceAlert(db: Db, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('balance_alerts').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export type BalanceAlertDeps = AlertDeliveryDeps;

const BALANCE = sql<number>`coalesce((select b.balance_nanos from credit_balances b where b.user_id = balance_alerts.user_id), 0)`;

/**
 * One pass over the alerts (safe from several gateway instances at once): re-arms those whose
 * balance is back at or above the threshold, then claims each armed alert whose balance is under
 * it (a conditional update: only one instance wins the claim) and delivers it. Returns how many fired.
 */
export async function checkBalanceAlerts(deps: BalanceAlertDeps): Promise<number> {
  const db = deps.store.db;
  const now = deps.clock.now();
  await db
    .updateTable('balance_alerts')
    .set({ armed: 1, updated_at: now })
    .where('armed', '=', 0)
    .where(sql<boolean>`${BALANCE} >= threshold_nanos`)
    .execute();
  const crossed = await db
    .selectFrom('balance_alerts')
    .innerJoin('user', 'user.id', 'balance_alerts.user_id')
    .select([
      'balance_alerts.user_id',
      'balance_alerts.threshold_nanos',
      'balance_alerts.email',
      'balance_alerts.webhook_url',
      'balance_alerts.webhook_secret',
      'user.email as address',
      BALANCE.as('balance_nanos'),
    ])
    .where('balance_alerts.armed', '=', 1)
    .where(sql<boolean>`${BALANCE} < threshold_nanos`)
    .limit(500)
    .execute();
  let fired = 0;
  for (const alert of crossed) {
    const claim = await db
      .updateTable('balance_alerts')
      .set({ armed: 0, updated_at: now })
      .where('user_id', '=', alert.user_id)
      .where('armed', '=', 1)
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) continue;
    fired++;
    const balance = nanosToUsd(Number(alert.balance_nanos));
    const threshold = nanosToUsd(Number(alert.threshold_nanos));
    await deliverAlert(deps, {
      userId: alert.user_id,
      event: 'balance_below',
      ...alertChannels(
        alert,
        {
          subject: `Your balance is under ${threshold} USD`,
          text: `Your credit balance is ${balance} USD, under the alert threshold of ${threshold} USD you set.\n\nAdd credits before requests are refused. This alert fires again only after the balance is back at or above the threshold.`,
        },
        {
          type: 'balance.below_threshold',
          now: deps.clock.now(),
          data: {
            user_id: alert.user_id,
            currency: 'USD',
            balance,
            balance_nanos: Number(alert.balance_nanos),
            threshold,
            threshold_nanos: Number(alert.threshold_nanos),
          },
        },
      ),
    });
  }
  return fired;
}

/** Runs checkBalanceAlerts every `intervalMs` (one pass at a time) until closed. */
export function startBalanceAlerts(
  deps: BalanceAlertDeps,
  intervalMs: number,
  onError: (error: unknown) => void,
): { close(): Promise<void> } {
  return runEvery(() => checkBalanceAlerts(deps), intervalMs, onError);
}
