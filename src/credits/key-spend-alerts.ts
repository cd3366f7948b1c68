import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { nanosToUsd } from '../metering/money.js';
import { alertChannels, deliverAlert, newWebhookSecret, runEvery, type AlertDeliveryDeps } from './alert-delivery.js';
import './key-spend-alert-schema.js';
import '../metering/metering-schema.js';

type Db = Kysely<Database>;
type Executor = Db | Transaction<Database>;

export const SPEND_PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type SpendPeriod = (typeof SPEND_PERIODS)[number];
export type PeriodAmounts = Record<SpendPeriod, number | null>;

const DAY_MS = 86_400_000;

/** Where each UTC period holding `time` starts: the day, the ISO week (from Monday), the calendar month. */
export function periodStarts(time: number): Record<SpendPeriod, number> {
  const date = new Date(time);
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return {
    daily: day,
    weekly: day - ((date.getUTCDay() + 6) % 7) * DAY_MS,
    monthly: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
  };
}

export interface KeySpendAlert {
  keyId: string;
  thresholdsNanos: PeriodAmounts;
  /** Start of the period each threshold last fired for (null: not yet). */
  firedFor: PeriodAmounts;
  email: boolean;
  webhookUrl: string | null;
  hasWebhookSecret: boolean;
}

const thresholdColumn = (period: SpendPeriod) => `${period}_nanos` as const;
const firedColumn = (period: SpendPeriod) => `${period}_fired_for` as const;
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

export async function getKeySpendAlert(db: Db, userId: string, keyId: string): Promise<KeySpendAlert | null> {
  const row = await db
    .selectFrom('key_spend_alerts')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return null;
  const fields: Record<string, unknown> = row;
  const per = (column: (period: SpendPeriod) => string) =>
    Object.fromEntries(SPEND_PERIODS.map((period) => [period, numberOrNull(fields[column(period)])])) as PeriodAmounts;
  return {
    keyId: row.key_id,
    thresholdsNanos: per(thresholdColumn),
    firedFor: per(firedColumn),
    email: Number(row.email) === 1,
    webhookUrl: row.webhook_url,
    hasWebhookSecret: row.webhook_secret !== null,
  };
}

/**
 * Sets a key's thresholds (the caller has checked the key is the user's). A threshold that changes
 * is armed anew: spend already at or over it fires at the next check, once; one left as it was
 * keeps its state, so editing the channels does not fire again. The webhook secret follows the
 * balance alert's rule: made when there is none (or on `rotateSecret`), returned only then.
 */
export async function setKeySpendAlert(
  db: Db,
  userId: string,
  keyId: string,
  input: { thresholdsNanos: PeriodAmounts; email: boolean; webhookUrl: string | null; rotateSecret?: boolean },
  now: number,
): Promise<{ alert: KeySpendAlert; newSecret: string | null }> {
  const existing = await getKeySpendAlert(db, userId, keyId);
  const stored = await db
    .selectFrom('key_spend_alerts')
    .select('webhook_secret')
    .where('key_id', '=', keyId)
    .executeTakeFirst();
  const needsSecret = input.webhookUrl !== null && (!stored?.webhook_secret || input.rotateSecret === true);
  const newSecret = needsSecret ? newWebhookSecret() : null;
  const secret = input.webhookUrl === null ? null : (newSecret ?? stored?.webhook_secret ?? null);
  const values = {
    user_id: userId,
    email: input.email ? 1 : 0,
    webhook_url: input.webhookUrl,
    webhook_secret: secret,
    updated_at: now,
    ...Object.fromEntries(
      SPEND_PERIODS.flatMap((period) => {
        const threshold = input.thresholdsNanos[period];
        const unchanged = existing !== null && existing.thresholdsNanos[period] === threshold;
        return [
          [thresholdColumn(period), threshold],
          [firedColumn(period), unchanged ? existing.firedFor[period] : null],
        ];
      }),
    ),
  };
  await db
    .insertInto('key_spend_alerts')
    .values({ key_id: keyId, ...values } as Database['key_spend_alerts'])
    .onConflict((conflict) => conflict.column('key_id').doUpdateSet(values))
    .execute();
  return { alert: (await getKeySpendAlert(db, userId, keyId))!, newSecret };
}

export async function deleteKeySpendAlert(db: Db, userId: string, keyId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('key_spend_alerts')
    .where('key_id', '=', keyId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A revoked key's alerts go with it (its webhook URL and secret are the user's, not history). */
export async function deleteKeySpendAlertsOfKey(db: Executor, keyId: string): Promise<void> {
  await db.deleteFrom('key_spend_alerts').where('key_id', '=', keyId).execute();
}

/**
 * Spend per key in the UTC day, week and month holding `now`, from the store's settled usage
 * (usage_events, written by every instance): the same rows key_spend and the ledger come from.
 */
export async function keyPeriodSpend(
  db: Executor,
  keyIds: string[],
  now: number,
): Promise<Map<string, Record<SpendPeriod, number>>> {
  const result = new Map<string, Record<SpendPeriod, number>>();
  if (keyIds.length === 0) return result;
  const starts = periodStarts(now);
  const since = Math.min(starts.weekly, starts.monthly);
  const inPeriod = (start: number) =>
    sql<string>`coalesce(sum(case when created_at >= ${start} then cost_nanos else 0 end), 0)`;
  const rows = await db
    .selectFrom('usage_events')
    .select(['key_id', inPeriod(starts.daily).as('daily'), inPeriod(starts.weekly).as('weekly')])
    .select(inPeriod(starts.monthly).as('monthly'))
    .where('key_id', 'in', keyIds)
    .where('created_at', '>=', since)
    .groupBy('key_id')
    .execute();
  for (const row of rows)
    result.set(row.key_id!, { daily: Number(row.daily), weekly: Number(row.weekly), monthly: Number(row.monthly) });
  return result;
}

export type KeySpendAlertDeps = AlertDeliveryDeps & {
  /** Alerts read per query (tests make it small to cross pages). */
  pageSize?: number;
};

const PERIOD_WORDS: Record<SpendPeriod, string> = { daily: 'today', weekly: 'this week', monthly: 'this month' };

/**
 * One pass over the key spend alerts (safe from several gateway instances at once): for each live
 * key with a threshold not yet fired in its current period, sums the period's spend; each threshold
 * reached is claimed with a conditional update (only one instance moves its fired-for mark to this
 * period) and delivered. A new period re-arms every threshold. Returns how many fired.
 */
export async function checkKeySpendAlerts(deps: KeySpendAlertDeps): Promise<number> {
  const now = deps.clock.now();
  let fired = 0;
  // In pages by key id: most armed thresholds are not reached, so a single capped read would check
  // the same first keys at every pass and never the rest.
  for (let after = ''; ;) {
    const page = await armedPage(deps, now, after);
    fired += await firePage(deps, page, now);
    if (page.length < (deps.pageSize ?? PAGE)) return fired;
    after = page[page.length - 1]!.key_id;
  }
}

const PAGE = 500;

/** Live keys' alerts with a threshold not yet fired in its current period, after a key id. */
async function armedPage(deps: KeySpendAlertDeps, now: number, after: string) {
  const starts = periodStarts(now);
  return deps.store.db
    .selectFrom('key_spend_alerts')
    .innerJoin('api_keys', 'api_keys.id', 'key_spend_alerts.key_id')
    .innerJoin('user', 'user.id', 'key_spend_alerts.user_id')
    .selectAll('key_spend_alerts')
    .select(['api_keys.name as key_name', 'user.email as address'])
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) =>
      eb.or(
        SPEND_PERIODS.map((period) =>
          eb.and([
            eb(`key_spend_alerts.${thresholdColumn(period)}`, 'is not', null),
            eb.or([
              eb(`key_spend_alerts.${firedColumn(period)}`, 'is', null),
              eb(`key_spend_alerts.${firedColumn(period)}`, '<', starts[period]),
            ]),
          ]),
        ),
      ),
    )
    .where('key_spend_alerts.key_id', '>', after)
    .orderBy('key_spend_alerts.key_id')
    .limit(deps.pageSize ?? PAGE)
    .execute();
}

async function firePage(
  deps: KeySpendAlertDeps,
  candidates: Awaited<ReturnType<typeof armedPage>>,
  now: number,
): Promise<number> {
  const db = deps.store.db;
  const starts = periodStarts(now);
  const spend = await keyPeriodSpend(
    db,
    candidates.map((row) => row.key_id),
    now,
  );
  let fired = 0;
  for (const alert of candidates) {
    for (const period of SPEND_PERIODS) {
      const threshold = numberOrNull(alert[thresholdColumn(period)]);
      const firedFor = numberOrNull(alert[firedColumn(period)]);
      const spent = spend.get(alert.key_id)?.[period] ?? 0;
      if (threshold === null || (firedFor !== null && firedFor >= starts[period]) || spent < threshold) continue;
      const claim = await db
        .updateTable('key_spend_alerts')
        .set({ [firedColumn(period)]: starts[period], updated_at: now })
        .where('key_id', '=', alert.key_id)
        .where(thresholdColumn(period), '=', threshold)
        .where((eb) => eb.or([eb(firedColumn(period), 'is', null), eb(firedColumn(period), '<', starts[period])]))
        .executeTakeFirst();
      if (Number(claim.numUpdatedRows) !== 1) continue;
      fired++;
      const spentUsd = nanosToUsd(spent);
      const thresholdUsd = nanosToUsd(threshold);
      const periodStart = new Date(starts[period]).toISOString();
      await deliverAlert(deps, {
        userId: alert.user_id,
        event: `key_spend_${period}`,
        keyId: alert.key_id,
        ...alertChannels(
          alert,
          {
            subject: `Key "${alert.key_name}" spent ${spentUsd} USD ${PERIOD_WORDS[period]}`,
            text: `Your API key "${alert.key_name}" (${alert.key_id}) has spent ${spentUsd} USD ${PERIOD_WORDS[period]} (UTC, since ${periodStart}), reaching the ${period} alert threshold of ${thresholdUsd} USD you set.\n\nThis alert fires once per ${period === 'daily' ? 'day' : period === 'weekly' ? 'week' : 'month'}.`,
          },
          {
            type: 'key.spend_threshold_crossed',
            now,
            data: {
              user_id: alert.user_id,
              key_id: alert.key_id,
              key_name: alert.key_name,
              period,
              period_start: periodStart,
              currency: 'USD',
              spend: spentUsd,
              spend_nanos: spent,
              threshold: thresholdUsd,
              threshold_nanos: threshold,
            },
          },
        ),
      });
    }
  }
  return fired;
}

/** Runs checkKeySpendAlerts every `intervalMs` (one pass at a time) until closed. */
export function startKeySpendAlerts(
  deps: KeySpendAlertDeps,
  intervalMs: number,
  onError: (error: unknown) => void,
): { close(): Promise<void> } {
  return runEvery(() => checkKeySpendAlerts(deps), intervalMs, onError);
}
