import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import type { Metering } from '../../metering/metering.js';
import { getBalance } from '../../credits/credit-ledger.js';
import { nanosToUsdNumber } from '../../metering/money.js';
import { usageReport, type UsageTotals } from '../../metering/usage-report.js';
import { formatDay, parseDateRange } from '../../metering/usage-date-range.js';
import { BalanceSchema, UsageReportSchema } from './usage-schemas.js';
import { usageFailures, withoutUnsent } from './usage-failures.js';
import { typed } from '../../shared/typebox-type-provider.js';

export interface UsageRouteDeps {
  store: Store;
  clock: Clock;
  metering: Metering | null;
}

/** USD as a JSON number for display, beside the exact integer nano-USD it came from. */
function money(prefix: string, nanos: number): Record<string, number> {
  return { [prefix]: nanosToUsdNumber(nanos), [`${prefix}_nanos`]: nanos };
}

function totalsJson(totals: UsageTotals) {
  return {
    requests: totals.requests,
    prompt_tokens: totals.promptTokens,
    completion_tokens: totals.completionTokens,
    cached_tokens: totals.cachedTokens,
    reasoning_tokens: totals.reasoningTokens,
    total_tokens: totals.totalTokens,
    ...money('cost', totals.costNanos),
  };
}

const DateParam = Type.Optional(Type.String({ description: 'YYYY-MM-DD (UTC)' }));

/** GET /api-account/user/balance and GET /api-account/user/usage (spec §4.8). */
export function registerUsageRoutes(app: FastifyInstance, deps: UsageRouteDeps): void {
  typed(app).get(
    '/user/balance',
    {
      schema: {
        summary: 'Credit balance available for API usage',
        tags: ['usage'],
        response: { 200: BalanceSchema, 401: { $ref: 'ErrorEnvelope#' } },
      },
    },
    async (request) => {
      const userId = request.user!.id;
      const { balance, held } = deps.metering
        ? await deps.metering.balanceOf(userId)
        : { balance: await getBalance(deps.store, userId), held: 0 };
      return {
        currency: 'USD',
        ...money('balance', balance),
        ...money('held', held),
        ...money('available', Math.max(0, balance - held)),
      };
    },
  );

  typed(app).get(
    '/user/usage',
    {
      schema: {
        summary: 'Token usage, cost summary, daily series and breakdowns by model and key',
        tags: ['usage'],
        querystring: Type.Object({ start_date: DateParam, end_date: DateParam }),
        response: { 200: UsageReportSchema, 400: { $ref: 'ErrorEnvelope#' }, 401: { $ref: 'ErrorEnvelope#' } },
      },
    },
    async (request) => usageResponse(deps, request.user!.id, request.query),
  );
}

/** One user's usage report as the API shows it (also the admin API's view of any user). */
export async function usageResponse(
  deps: Pick<UsageRouteDeps, 'store' | 'clock'>,
  userId: string,
  query: { start_date?: string; end_date?: string },
) {
  const range = parseDateRange(query, deps.clock.now());
  const [fullReport, { unsent, failures }] = await Promise.all([
    usageReport(deps.store.db, userId, range.startMs, range.endMs),
    usageFailures(deps.store.db, userId, range.startMs, range.endMs),
  ]);
  const report = withoutUnsent(fullReport, unsent);
  return {
    start_date: range.startDate,
    end_date: range.endDate,
    currency: 'USD',
    totals: totalsJson(report.totals),
    daily: report.daily.map((day) => ({ date: formatDay(day.day), ...totalsJson(day) })),
    by_model: report.byModel.map((model) => ({ model: model.model, ...totalsJson(model) })),
    by_key: report.byKey.map((key) => ({ key_id: key.keyId, name: key.name, ...totalsJson(key) })),
    failures: failures.map((failure) => ({
      status: failure.status,
      error_code: failure.errorCode,
      requests: failure.requests,
      models: failure.models,
    })),
  };
}
