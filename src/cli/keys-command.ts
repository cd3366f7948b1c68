import type { Runtime } from '../gateway-runtime.js';
import { createApiKey } from '../keys/create-api-key.js';
import { listApiKeysForUser } from '../keys/api-key-repository.js';
import { maskedKey } from '../keys/api-key-format.js';
import { findLiveKeyById, revokeKey, rotateKey } from '../keys/key-lifecycle.js';
import { randomIdGenerator } from '../shared/ids.js';
import { findUserByEmail } from '../users/user-repository.js';
import { parseFlags, requireFlags, wholeNumberFlag, type FlagSpecs } from './cli-arguments.js';
import { CliError, UsageError } from './cli-context.js';
import { formatTable } from './users-command.js';

type Write = (text: string) => void;

/** The account API's default grace period for a rotated secret (a day); the CLI keeps to it. */
const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;

const EMAIL = { form: 'E (the account email)' };
const KEY_ID = { form: 'KEY_ID (from `gateway keys list`)' };
const FLAGS: Record<string, FlagSpecs> = {
  create: {
    email: EMAIL,
    name: { form: 'N (a label for the key)' },
    'allowed-models': { form: 'a,b/* (model ids or globs)' },
    'expires-days': { form: 'D (days, e.g. 30)' },
  },
  list: { email: EMAIL },
  revoke: { id: KEY_ID },
  rotate: { id: KEY_ID, 'grace-seconds': { form: 'S (seconds the old secret still works)' } },
};

function toIso(milliseconds: number | null): string {
  return milliseconds === null ? '-' : new Date(milliseconds).toISOString();
}

async function userOrFail(runtime: Runtime, email: string) {
  const user = await findUserByEmail(runtime.store.db, email);
  if (!user)
    throw new CliError(
      `no user with the email ${email} (create one with: gateway users create --email ${email} --password …)`,
    );
  return user;
}

/** `gateway keys create|list|revoke|rotate`. Full keys are printed once, on stdout; notes on stderr. */
export async function runKeysCommand(
  subcommand: string | undefined,
  args: string[],
  openRuntime: () => Promise<Runtime>,
  write: Write,
  note: Write,
): Promise<void> {
  const specs = subcommand ? FLAGS[subcommand] : undefined;
  if (!specs)
    throw new UsageError(
      subcommand
        ? `unknown command: keys ${subcommand} (it is one of: ${Object.keys(FLAGS).join(', ')})`
        : `keys needs a command: ${Object.keys(FLAGS).join(', ')}`,
      'keys',
    );
  const command = `keys ${subcommand}`;
  const parsed = parseFlags(command, args, specs);
  const values = parsed.values as Record<string, string | undefined>;
  let expiresDays: number | null = null;
  let graceSeconds = DEFAULT_ROTATION_GRACE_SECONDS;
  if (subcommand === 'create') {
    requireFlags(command, parsed, ['email', 'name'], specs);
    if (values['expires-days'] !== undefined) {
      expiresDays = Number(values['expires-days']);
      if (!(Number.isFinite(expiresDays) && expiresDays > 0))
        throw new UsageError(
          `${command}: --expires-days must be a positive number of days (got "${values['expires-days']}")`,
          command,
        );
    }
  }
  if (subcommand === 'list') requireFlags(command, parsed, ['email'], specs);
  if (subcommand === 'revoke' || subcommand === 'rotate') requireFlags(command, parsed, ['id'], specs);
  if (subcommand === 'rotate')
    graceSeconds = wholeNumberFlag(command, 'grace-seconds', values['grace-seconds'], 0, 30 * 86_400) ?? graceSeconds;

  const runtime = await openRuntime();
  try {
    const now = Date.now();
    if (subcommand === 'create') {
      const user = await userOrFail(runtime, values.email!);
      const allowed = values['allowed-models']
        ?.split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      const { row, fullKey } = await createApiKey(runtime.store, randomIdGenerator, now, {
        userId: user.id,
        name: values.name!,
        allowedModels: allowed && allowed.length > 0 ? allowed : null,
        expiresAt: expiresDays === null ? null : now + Math.round(expiresDays * 86_400_000),
      });
      note(`created key ${row.id} "${row.name}" for ${user.email}. It is shown only once:\n`);
      write(`${fullKey}\n`);
      return;
    }
    if (subcommand === 'list') {
      const user = await userOrFail(runtime, values.email!);
      const keys = await listApiKeysForUser(runtime.store.db, user.id);
      const rows = keys.map((key) => [
        key.id,
        key.name,
        maskedKey(key.key_start, key.key_end),
        toIso(key.created_at),
        toIso(key.last_used_at),
        key.expires_at === null ? 'never' : toIso(key.expires_at),
      ]);
      write(formatTable(['ID', 'NAME', 'KEY', 'CREATED', 'LAST USED', 'EXPIRES'], rows));
      write(`${keys.length} live key${keys.length === 1 ? '' : 's'} of ${user.email}\n`);
      return;
    }
    const key = await findLiveKeyById(runtime.store, values.id!);
    if (!key) throw new CliError(`no live key with the id ${values.id} (see: gateway keys list --email E)`);
    if (subcommand === 'revoke') {
      if (!(await revokeKey(runtime.store, key, now))) throw new CliError(`the key ${key.id} was revoked meanwhile`);
      write(`revoked key ${key.id} "${key.name}" (${maskedKey(key.key_start, key.key_end)}); it never works again\n`);
      return;
    }
    const rotated = await rotateKey(runtime.store, key, graceSeconds, now);
    if (!rotated) throw new CliError(`the key ${key.id} was revoked or rotated meanwhile; nothing changed`);
    note(
      `rotated key ${key.id} "${key.name}"; the old secret works until ${toIso(rotated.previousExpiresAt)}. The new one is shown only once:\n`,
    );
    write(`${rotated.fullKey}\n`);
  } finally {
    await runtime.store.destroy();
  }
}
