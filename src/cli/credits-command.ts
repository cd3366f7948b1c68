import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/database.js';
import { findUserByEmail } from '../users/user-repository.js';
import { applyLedgerEntry, getBalance, hasLedgerEntry } from '../credits/credit-ledger.js';
import { balanceMismatches } from '../credits/ledger-balance-check.js';
import { usageChargeDrift } from '../metering/usage-charge-check.js';
import type { RedisHotCounters } from '../metering/redis-hot-counters.js';
import { nanosToUsd, parseUsdAmount } from '../metering/money.js';

/** Failures the CLI reports in one line; `usage` ones also print the usage text. */
export class CreditsCommandError extends Error {
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

/** What a credits command works on: the store and, with REDIS_URL, the hot counters every instance shares. */
export interface CreditsTarget {
  store: Store;
  /** null without Redis (each serving process keeps its own counters and polls the ledger). */
  counters: RedisHotCounters | null;
  close(): Promise<void>;
}

/**
 * `gateway credits grant --email E --amount USD [--reference R]`, `gateway credits balance
 * --email E` and `gateway credits reconcile`. A grant without --reference gets a fresh one;
 * with it, running the same grant twice for the same user credits once (the reference is unique
 * per user). A grant reaches the hot counters of the
 * running instances through the ledger's watcher (Redis), or their ledger poll (no Redis).
 */
export async function runCreditsCommand(
  subcommand: string | undefined,
  args: string[],
  open: () => Promise<CreditsTarget>,
  write: (text: string) => void,
): Promise<void> {
  if (subcommand === 'reconcile') {
    parseArgs({ args, options: {}, strict: true });
    const target = await open();
    try {
      await reconcile(target, write);
    } finally {
      await target.close();
    }
    return;
  }
  if (subcommand !== 'grant' && subcommand !== 'balance')
    throw new CreditsCommandError(`unknown command: credits ${subcommand ?? ''}`.trim(), true);
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      amount: { type: 'string' },
      reference: { type: 'string' },
      note: { type: 'string' },
    },
    strict: true,
  });
  if (!values.email) throw new CreditsCommandError(`credits ${subcommand} needs --email`, true);
  let amount: number | null = null;
  if (subcommand === 'grant') {
    if (!values.amount) throw new CreditsCommandError('credits grant needs --amount (USD, e.g. 10 or 2.50)', true);
    amount = parseUsdAmount(values.amount);
    if (amount === null)
      throw new CreditsCommandError(
        `--amount must be a positive USD amount with at most 9 decimals (got '${values.amount}')`,
      );
  }
  const target = await open();
  const { store } = target;
  try {
    const user = await findUserByEmail(store.db, values.email);
    if (!user) throw new CreditsCommandError(`no user with the email ${values.email}`);
    if (amount === null) {
      write(`${user.email}: ${nanosToUsd(await getBalance(store, user.id))} USD\n`);
      return;
    }
    // References are unique across the ledger; an operator's reference is unique per user, so it
    // carries the user's id (a second user's grant with the same reference is its own grant).
    const reference = values.reference ? `grant:${user.id}:${values.reference}` : `grant:cli:${randomUUID()}`;
    // Grants made before references were per user carry `grant:R`: a repeat must still be a no-op.
    const legacy = values.reference ? await hasLedgerEntry(store, user.id, `grant:${values.reference}`) : false;
    const result = legacy
      ? { applied: false, balance: 0 }
      : await applyLedgerEntry(store, {
          userId: user.id,
          kind: 'grant',
          amount,
          reference,
          description: values.note ?? 'granted from the command line',
        });
    write(
      result.applied
        ? `granted ${nanosToUsd(amount)} USD to ${user.email}; balance ${nanosToUsd(result.balance)} USD\n`
        : `a grant with the reference ${values.reference} was already applied to ${user.email}; nothing changed (balance ${nanosToUsd(await getBalance(store, user.id))} USD)\n`,
    );
  } finally {
    await target.close();
  }
}

/** Checks balances against the ledger, rebuilds the shared hot counters from it and reports any drift. */
async function reconcile(target: CreditsTarget, write: (text: string) => void): Promise<void> {
  const mismatches = await balanceMismatches(target.store.db);
  write(
    mismatches.length === 0
      ? 'ledger: every balance equals the sum of its entries\n'
      : `ledger: ${mismatches.length} balances differ from their entries (left as they are; investigate):\n${mismatches
          .map(
            (mismatch) =>
              `  user ${mismatch.userId}: balance ${nanosToUsd(mismatch.balance)} USD, entries sum to ${nanosToUsd(mismatch.ledgerSum)} USD\n`,
          )
          .join('')}`,
  );
  const usage = await usageChargeDrift(target.store.db);
  write(
    usage.length === 0
      ? 'usage: every answered request with a cost is charged once, at its full cost\n'
      : `usage: ${usage.length} users have answered requests not charged in full (events with a cost and no charge are expected only while billing.require_credits was off):\n${usage
          .slice(0, 50)
          .map(
            (drift) =>
              `  user ${drift.userId}: ${drift.uncharged} uncharged (${nanosToUsd(drift.unchargedNanos)} USD), ${drift.cut} charged below their cost (${nanosToUsd(drift.cutNanos)} USD short), ${drift.orphanCharges} charges without their usage event\n`,
          )
          .join('')}`,
  );
  if (!target.counters) {
    write(
      'hot counters: no REDIS_URL, so each serving process keeps its own in memory, loads them from the ledger at first use and polls it every second for entries written elsewhere; nothing shared to rebuild\n',
    );
    return;
  }
  const unwritten = await target.counters.unwrittenSettlements();
  if (unwritten > 0)
    write(
      `settlements: ${unwritten} answered requests are still in the Redis stream, not yet written to the store (the figures above are behind by them until the instances write them)\n`,
    );
  const drift = await target.counters.reconcile(Date.now());
  write(
    drift.length === 0
      ? 'hot counters: rebuilt from the ledger, no drift\n'
      : `hot counters: rebuilt from the ledger; ${drift.length} had drifted:\n${drift
          .map(
            (entry) =>
              `  ${entry.entity}: was ${entry.actual === null ? 'not loaded' : nanosToUsd(entry.actual)}, now ${nanosToUsd(entry.expected)} USD\n`,
          )
          .join('')}`,
  );
}
