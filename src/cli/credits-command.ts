import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/database.js';
import { findUserByEmail } from '../users/user-repository.js';
import { applyLedgerEntry, getBalance, hasLedgerEntry } from '../credits/credit-ledger.js';
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

/**
 * `gateway credits grant --email E --amount USD [--reference R]` and
 * `gateway credits balance --email E`. A grant without --reference gets a fresh one; with it,
 * running the same grant twice credits once.
 */
export async function runCreditsCommand(
  subcommand: string | undefined,
  args: string[],
  openStore: () => Promise<Store>,
  write: (text: string) => void,
): Promise<void> {
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
  const store = await openStore();
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
    await store.destroy();
  }
}
