import { randomUUID } from 'node:crypto';
import type { Store } from '../store/database.js';
import { findUserByEmail } from '../users/user-repository.js';
import { applyLedgerEntry, getBalance, hasLedgerEntry, listLedgerEntries } from '../credits/credit-ledger.js';
import { balanceMismatches } from '../credits/ledger-balance-check.js';
import { usageChargeDrift } from '../metering/usage-charge-check.js';
import type { RedisHotCounters } from '../metering/redis-hot-counters.js';
import { nanosToUsd, parseUsdAmount } from '../metering/money.js';
import { parseFlags, requireFlags, wholeNumberFlag, type FlagSpecs } from './cli-arguments.js';
import { CliError, UsageError } from './cli-context.js';
import { formatTable } from './users-command.js';

const EMAIL = { form: 'E (the account email)' };
const FLAGS: Record<string, FlagSpecs> = {
  grant: {
    email: EMAIL,
    amount: { form: 'USD (a positive amount, e.g. 10 or 2.50)' },
    reference: { form: 'R (applied once per account)' },
    note: { form: 'TEXT (shown in the history)' },
  },
  balance: { email: EMAIL },
  history: { email: EMAIL, limit: { form: 'N (entries, 1 to 1000)' } },
  reconcile: {},
};
const DEFAULT_HISTORY_LIMIT = 20;

/** What a credits command works on: the store and, with REDIS_URL, the hot counters every instance shares. */
export interface CreditsTarget {
  store: Store;
  /** null without Redis (each serving process keeps its own counters and polls the ledger). */
  counters: RedisHotCounters | null;
  close(): Promise<void>;
}

/**
 * `gateway credits grant --email E --amount USD [--reference R]`, `gateway credits balance
 * --email E`, `gateway credits history --email E [--limit N]` and `gateway credits reconcile`. A grant without --reference gets a fresh one;
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
  const specs = subcommand ? FLAGS[subcommand] : undefined;
  if (!specs)
    throw new UsageError(
      subcommand
        ? `unknown command: credits ${subcommand} (it is one of: ${Object.keys(FLAGS).join(', ')})`
        : `credits needs a command: ${Object.keys(FLAGS).join(', ')}`,
      'credits',
    );
  const command = `credits ${subcommand}`;
  const parsed = parseFlags(command, args, specs);
  const values = parsed.values as Record<string, string | undefined>;
  if (subcommand === 'reconcile') {
    const target = await open();
    try {
      await reconcile(target, write);
    } finally {
      await target.close();
    }
    return;
  }
  requireFlags(command, parsed, subcommand === 'grant' ? ['email', 'amount'] : ['email'], specs);
  let amount: number | null = null;
  if (subcommand === 'grant') {
    amount = parseUsdAmount(values.amount!);
    if (amount === null)
      throw new UsageError(
        `${command}: --amount must be a positive USD amount with at most 9 decimals, e.g. 10 or 2.50 (got "${values.amount}")`,
        command,
      );
  }
  const limit = wholeNumberFlag(command, 'limit', values.limit, 1, 1000) ?? DEFAULT_HISTORY_LIMIT;
  const target = await open();
  const { store } = target;
  try {
    const user = await findUserByEmail(store.db, values.email!);
    if (!user) throw new CliError(`no user with the email ${values.email}`);
    if (subcommand === 'history') {
      write(await historyTable(store, user.id, user.email, limit));
      return;
    }
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

/** The newest ledger entries of an account, with the balance under them. */
async function historyTable(store: Store, userId: string, email: string, limit: number): Promise<string> {
  const entries = await listLedgerEntries(store.db, userId, limit);
  const rows = entries.map((entry) => [
    new Date(Number(entry.created_at)).toISOString(),
    entry.kind,
    (entry.amount_nanos > 0 ? '+' : '') + nanosToUsd(Number(entry.amount_nanos)),
    entry.description,
  ]);
  const table = rows.length > 0 ? formatTable(['WHEN', 'KIND', 'USD', 'DESCRIPTION'], rows) : '';
  const balance = nanosToUsd(await getBalance(store, userId));
  const count = `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} shown (newest first, at most ${limit})`;
  return `${table}${email}: ${count}; balance ${balance} USD\n`;
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
