/** The CLI's help: one entry per command, so a usage error can show just the lines it is about. */
interface CommandHelp {
  command: string;
  synopsis: string;
  summary: string;
}

const COMMANDS: CommandHelp[] = [
  {
    command: 'serve',
    synopsis: 'serve [--workers N]',
    summary:
      'start the gateway (migrates the store first); --workers N: N processes on one port (PostgreSQL + Redis only)',
  },
  { command: 'migrate', synopsis: 'migrate', summary: "bring the store's schema up to date" },
  {
    command: 'doctor',
    synopsis: 'doctor [--timeout MS]',
    summary:
      'check config, store, migrations, Redis and every provider (its model list: authenticated, refused or down)',
  },
  {
    command: 'users create',
    synopsis: 'users create --email E --password P [--name N] [--exists-ok]',
    summary: 'create an account (--exists-ok: an existing one is reused and left unchanged)',
  },
  { command: 'users list', synopsis: 'users list', summary: 'every account: role, status, active keys' },
  {
    command: 'users show',
    synopsis: 'users show --email E',
    summary: 'one account: id, role, status, balance, keys',
  },
  {
    command: 'users disable',
    synopsis: 'users disable --email E',
    summary: 'end its sessions, revoke its keys, refuse sign-in',
  },
  { command: 'users enable', synopsis: 'users enable --email E', summary: 'allow sign-in again' },
  {
    command: 'users set-password',
    synopsis: 'users set-password --email E [--password P]',
    summary: 'set (or generate and print) a new password',
  },
  {
    command: 'users set-role',
    synopsis: 'users set-role --email E --role admin|user',
    summary: 'grant or take away the admin role (/api-account/admin/*)',
  },
  {
    command: 'users invite',
    synopsis: 'users invite <email>',
    summary: 'print a single-use sign-up link for that address (auth.sign_up: invite)',
  },
  {
    command: 'keys create',
    synopsis: 'keys create --email E --name N [--allowed-models a,b/*] [--expires-days D]',
    summary: 'create an API key and print it (shown once)',
  },
  { command: 'keys list', synopsis: 'keys list --email E', summary: "the account's live keys, masked" },
  {
    command: 'keys revoke',
    synopsis: 'keys revoke --id KEY_ID',
    summary: 'revoke a key for good (running gateways drop it within seconds)',
  },
  {
    command: 'keys rotate',
    synopsis: 'keys rotate --id KEY_ID [--grace-seconds S]',
    summary:
      'a new secret for the key, printed once; the old one works S more seconds (default 86400, a day, as the account API)',
  },
  {
    command: 'credits grant',
    synopsis: 'credits grant --email E --amount USD [--reference R] [--note TEXT]',
    summary: 'add credits (a repeated --reference applies once)',
  },
  { command: 'credits balance', synopsis: 'credits balance --email E', summary: 'print the credit balance' },
  {
    command: 'credits history',
    synopsis: 'credits history --email E [--limit N]',
    summary: "the account's ledger, newest first (default 20 entries)",
  },
  {
    command: 'credits reconcile',
    synopsis: 'credits reconcile',
    summary: 'check balances against the ledger, rebuild the shared hot counters (Redis), report drift',
  },
];

const FOOTER = `Every command takes --config (else GATEWAY_CONFIG, else ./gateway.config.yaml) and
--database-url (else DATABASE_URL, else sqlite:./data/gateway.db), and names both when it fails.
Exit status: 0 done, 1 failed, 2 a usage error (unknown command, missing or malformed flag).

Environment: GATEWAY_CONFIG, DATABASE_URL, REDIS_URL, HOST, PORT, LOG_LEVEL,
             GATEWAY_ADMIN_EMAIL, GATEWAY_ADMIN_PASSWORD, provider keys (OPENAI_API_KEY, …)`;

function lines(entries: CommandHelp[]): string {
  return entries.map((entry) => `  gateway ${entry.synopsis}\n      ${entry.summary}`).join('\n');
}

/** The whole help text. */
export function fullUsage(): string {
  return `Usage: gateway <command> [options] [--config FILE] [--database-url URL]\n\nCommands:\n${lines(COMMANDS)}\n\n${FOOTER}`;
}

/**
 * The usage of the commands a usage error is about (`keys rotate`, or every `keys` command),
 * short enough that the error above it stays in view; the whole help when nothing matches.
 */
export function usageFor(command: string | undefined): string {
  const words = (command ?? '').trim();
  const exact = COMMANDS.filter((entry) => entry.command === words);
  const group = COMMANDS.filter((entry) => words !== '' && entry.command.split(' ')[0] === words.split(' ')[0]);
  const chosen = exact.length > 0 ? exact : group;
  if (chosen.length === 0) return fullUsage();
  return `Usage:\n${lines(chosen)}\n\nRun \`gateway help\` for every command.`;
}
