import { createUser } from '../users/create-user.js';
import { findUserByEmail } from '../users/user-repository.js';
import { randomIdGenerator } from '../shared/ids.js';
import { generatePassword, passwordProblem } from '../users/password-policy.js';
import { parseAuthSettings } from '../users/auth-settings.js';
import { InvitationService } from '../users/invitations.js';
import { systemClock } from '../shared/clock.js';
import { GatewayError } from '../shared/errors.js';
import { setUserDisabled } from '../users/set-user-disabled.js';
import { getRole, isRole, ROLES, setRole } from '../users/user-roles.js';
import { recordAudit } from '../users/admin-audit-log.js';
import type { Runtime } from '../gateway-runtime.js';
import { CliError, UsageError } from './cli-context.js';
import { parseFlags, requireFlags, type FlagSpecs } from './cli-arguments.js';
import { getBalance } from '../credits/credit-ledger.js';
import { nanosToUsd } from '../metering/money.js';
import { withAuthContext } from '../users/auth-async-context.js';
import { revokeResetTokens } from '../users/password-reset-tokens.js';

type Write = (text: string) => void;

function toIso(value: unknown): string {
  const date = value instanceof Date ? value : new Date(value as string | number);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString();
}

const EMAIL = { form: 'E (the account email)' };
const FLAGS: Record<string, FlagSpecs> = {
  create: {
    email: EMAIL,
    password: { form: 'P (at least 10 characters)' },
    name: { form: 'N (display name)' },
    'exists-ok': { type: 'boolean' },
  },
  list: {},
  show: { email: EMAIL },
  disable: { email: EMAIL },
  enable: { email: EMAIL },
  'set-password': { email: EMAIL, password: { form: 'P (omit to generate one)' } },
  'set-role': { email: EMAIL, role: { form: ROLES.join('|') } },
  invite: { email: EMAIL },
};

async function userByEmail(runtime: Runtime, email: string | undefined, command: string) {
  if (!email) throw new UsageError(`users ${command} needs --email E`, `users ${command}`);
  const user = await findUserByEmail(runtime.store.db, email);
  if (!user) throw new CliError(`no user with the email ${email}`);
  return user;
}

/**
 * `gateway users create|list|show|disable|enable|set-password|set-role|invite`. `create
 * --exists-ok` reuses an account that exists (the README's tour runs on any store). Disabling deletes the
 * account's sessions, revokes its API keys (written to the key change feed, so running gateways
 * drop them within their poll interval) and refuses new sign-ins; enabling allows sign-in again
 * (revoked keys stay revoked). A new password also ends every session. Role changes, disabling and
 * enabling are recorded in the admin audit log with no acting account (the command line).
 */
export async function runUsersCommand(
  subcommand: string | undefined,
  args: string[],
  openRuntime: () => Promise<Runtime>,
  write: Write,
): Promise<void> {
  const specs = subcommand ? FLAGS[subcommand] : undefined;
  if (!specs)
    throw new UsageError(
      subcommand
        ? `unknown command: users ${subcommand} (it is one of: ${Object.keys(FLAGS).join(', ')})`
        : `users needs a command: ${Object.keys(FLAGS).join(', ')}`,
      'users',
    );
  const command = `users ${subcommand}`;
  const parsed = parseFlags(command, args, specs, {
    positionals: subcommand === 'invite' || subcommand === 'set-role',
  });
  const values = parsed.values as Record<string, string | undefined> & { 'exists-ok'?: boolean };
  const { positionals } = parsed;
  if (subcommand === 'invite') {
    const email = values.email ?? positionals[0];
    if (!email || positionals.length > (values.email ? 0 : 1))
      throw new UsageError('users invite needs one email: gateway users invite <email>', command);
    return inviteUser(email, openRuntime, write);
  }
  if (subcommand === 'create') requireFlags(command, parsed, ['email', 'password'], specs);
  if (subcommand === 'show') requireFlags(command, parsed, ['email'], specs);
  if (subcommand === 'set-role') {
    // `users set-role --email E --role admin` or `users set-role E admin`.
    values.email ??= positionals[0];
    values.role ??= positionals[1];
    if (!values.email || !isRole(values.role))
      throw new UsageError(
        `users set-role needs --email E and --role (${ROLES.join(' or ')})${values.role ? `, got "${values.role}"` : ''}`,
        command,
      );
  }
  const runtime = await openRuntime();
  try {
    const db = runtime.store.db;
    switch (subcommand) {
      case 'create': {
        const existing = await findUserByEmail(db, values.email!.trim());
        if (existing && values['exists-ok']) {
          write(
            `user ${existing.email} already exists (id ${existing.id}, role ${await getRole(db, existing.id)}); reusing it, password unchanged\n`,
          );
          return;
        }
        const user = await createUser(runtime.auth, runtime.store, {
          email: values.email!,
          password: values.password!,
          name: values.name,
        });
        write(`created user ${user.email} (id ${user.id})\n`);
        return;
      }
      case 'show': {
        const user = await userByEmail(runtime, values.email, 'show');
        const row = await db
          .selectFrom('user')
          .select(['createdAt', 'disabled'])
          .where('id', '=', user.id)
          .executeTakeFirstOrThrow();
        const keys = await db
          .selectFrom('api_keys')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('user_id', '=', user.id)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        const fields: Array<[string, string]> = [
          ['email', user.email],
          ['name', user.name || '-'],
          ['id', user.id],
          ['role', await getRole(db, user.id)],
          ['status', row.disabled ? 'disabled' : 'active'],
          ['keys', `${Number(keys?.count ?? 0)} live`],
          ['balance', `${nanosToUsd(await getBalance(runtime.store, user.id))} USD`],
          ['created', toIso(row.createdAt)],
        ];
        write(fields.map(([field, value]) => `${`${field}:`.padEnd(9)}${value}\n`).join(''));
        return;
      }
      case 'list': {
        const users = await db
          .selectFrom('user')
          .select(['id', 'email', 'name', 'createdAt', 'disabled'])
          .orderBy('createdAt')
          .execute();
        const admins = new Set(
          (await db.selectFrom('user_roles').select('user_id').where('role', '=', 'admin').execute()).map(
            (row) => row.user_id,
          ),
        );
        const keys = await db
          .selectFrom('api_keys')
          .select(['user_id', (eb) => eb.fn.countAll<number>().as('count')])
          .where('revoked_at', 'is', null)
          .groupBy('user_id')
          .execute();
        const activeKeys = new Map(keys.map((row) => [row.user_id, Number(row.count)]));
        const rows = users.map((user) => [
          user.email,
          admins.has(user.id) ? 'admin' : 'user',
          user.disabled ? 'disabled' : 'active',
          String(activeKeys.get(user.id) ?? 0),
          toIso(user.createdAt),
          user.id,
        ]);
        write(formatTable(['EMAIL', 'ROLE', 'STATUS', 'KEYS', 'CREATED', 'ID'], rows));
        write(`${users.length} user${users.length === 1 ? '' : 's'}\n`);
        return;
      }
      case 'disable': {
        const user = await userByEmail(runtime, values.email, 'disable');
        const now = Date.now();
        const { revokedKeyHashes } = await setUserDisabled(runtime.auth, runtime.store, user.id, true, now);
        await recordAudit(
          db,
          {
            actorUserId: null,
            action: 'user.disable',
            targetUserId: user.id,
            details: { revoked_keys: revokedKeyHashes.length },
          },
          now,
        );
        write(
          `disabled ${user.email}: sessions ended, ${revokedKeyHashes.length} API key(s) revoked, sign-in refused\n`,
        );
        return;
      }
      case 'enable': {
        const user = await userByEmail(runtime, values.email, 'enable');
        const now = Date.now();
        await setUserDisabled(runtime.auth, runtime.store, user.id, false, now);
        await recordAudit(db, { actorUserId: null, action: 'user.enable', targetUserId: user.id, details: {} }, now);
        write(`enabled ${user.email}: sign-in allowed again (revoked keys stay revoked)\n`);
        return;
      }
      case 'set-password': {
        const user = await userByEmail(runtime, values.email, 'set-password');
        const generated = values.password ? null : generatePassword();
        const password = values.password ?? generated!;
        const problem = passwordProblem(password);
        if (problem) throw new CliError(problem);
        await withAuthContext(runtime.auth, async (context) => {
          if (!(await context.internalAdapter.findCredentialAccount(user.id)))
            throw new CliError(`${user.email} has no password sign-in to change`);
          await context.internalAdapter.updatePassword(user.id, await context.password.hash(password));
          await context.internalAdapter.deleteUserSessions(user.id);
        });
        await revokeResetTokens(db, user.id);
        write(`set a new password for ${user.email}; its sessions and reset links were ended\n`);
        if (generated) write(`password (shown once): ${generated}\n`);
        return;
      }
      case 'set-role': {
        const user = await userByEmail(runtime, values.email, 'set-role');
        const role = values.role as 'admin' | 'user';
        const now = Date.now();
        await setRole(db, user.id, role, now);
        await recordAudit(
          db,
          { actorUserId: null, action: 'user.set_role', targetUserId: user.id, details: { role } },
          now,
        );
        write(`${user.email} now has the role ${role}\n`);
        return;
      }
    }
  } finally {
    await runtime.store.destroy();
  }
}

/**
 * `gateway users invite <email>`: an invitation for one address, single-use and expiring
 * (auth.invitation_ttl_hours); prints the sign-up link, which carries the only copy of the token.
 */
async function inviteUser(email: string, openRuntime: () => Promise<Runtime>, write: Write): Promise<void> {
  const runtime = await openRuntime();
  try {
    const settings = parseAuthSettings(runtime.config.sections.auth, runtime.environment.production);
    const invitations = new InvitationService(runtime.store.db, systemClock, randomIdGenerator, {
      publicUrl: runtime.config.server.publicUrl,
      ttlMs: settings.invitationTtlMs,
    });
    const invitation = await invitations.issue(email).catch((error: unknown) => {
      throw error instanceof GatewayError ? new CliError(error.message) : error;
    });
    write(`${invitation.link}\n`);
    process.stderr.write(
      `invited ${invitation.email} (id ${invitation.id}); the link works once, until ${new Date(invitation.expiresAt).toISOString()}\n`,
    );
    if (settings.signUp !== 'invite')
      process.stderr.write(
        `note: auth.sign_up is ${settings.signUp}, so sign-up does not ask for invitations; set auth.sign_up: invite\n`,
      );
  } finally {
    await runtime.store.destroy();
  }
}

/** Left-aligned columns, two spaces apart. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
