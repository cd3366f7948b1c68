// npm run test:agents (opt-in; needs the npm registry and a built gateway: npm run build).
// Installs Claude Code, Codex CLI and Gemini CLI at pinned versions into a temporary folder,
// starts the gateway (SQLite) on a fake upstream (scripts/agent-capture-upstream.mjs), and runs
// each agent one-shot with "say hello" on a model of its own protocol (native pass-through) and on
// one of another protocol (translated). Passes when every run prints "hello".
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const AGENTS = { '@anthropic-ai/claude-code': '2.1.197', '@openai/codex': '0.169.0', '@google/gemini-cli': '0.61.0' };
const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'gateway-agents-'));
const agentsDir = process.env.AGENTS_DIR ?? join(work, 'agents');
const bin = (name) => join(agentsDir, 'node_modules', '.bin', name);
const children = [];
const stop = () => children.forEach((child) => child.kill());
process.on('exit', stop);

if (!existsSync(bin('claude'))) {
  mkdirSync(agentsDir, { recursive: true });
  const specs = Object.entries(AGENTS).map(([name, version]) => `${name}@${version}`);
  console.log(`installing ${specs.join(' ')} into ${agentsDir}`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', agentsDir, ...specs], { stdio: 'inherit' });
}

const upstreamPort = 18700 + Math.floor(Math.random() * 200);
const gatewayPort = upstreamPort + 300;
const upstream = `http://127.0.0.1:${upstreamPort}`;
const gateway = `http://127.0.0.1:${gatewayPort}`;
const timeouts = '{ connect_ms: 2000, first_byte_ms: 20000, idle_ms: 20000, total_ms: 60000 }';
const pricing = '{ prompt: 1, completion: 2 }';
const config = join(work, 'gateway.config.yaml');
writeFileSync(
  config,
  `providers:
  - { id: claude, name: Anthropic, type: anthropic, base_url: ${upstream}/v1, api_key: up, timeouts: ${timeouts} }
  - { id: oai, name: OpenAI, type: openai, base_url: ${upstream}/v1, api_key: up, timeouts: ${timeouts}, options: { responses_api: true } }
  - { id: gem, name: Gemini, type: gemini, base_url: ${upstream}/v1beta, api_key: up, timeouts: ${timeouts} }
models:
  - { id: test/claude, endpoints: [{ provider: claude, upstream_model: claude-up, pricing: ${pricing} }] }
  - { id: test/gpt, endpoints: [{ provider: oai, upstream_model: gpt-up, pricing: ${pricing} }] }
  - { id: test/gemini, endpoints: [{ provider: gem, upstream_model: gemini-up, pricing: ${pricing} }] }
  - { id: gemini-3.5-flash-lite, endpoints: [{ provider: gem, upstream_model: gemini-up, pricing: ${pricing} }] }
`,
);
const env = {
  ...process.env,
  GATEWAY_CONFIG: config,
  DATABASE_URL: `sqlite:${join(work, 'gateway.db')}`,
  LOG_LEVEL: 'warn',
};
delete env.REDIS_URL;
const cli = (...args) =>
  execFileSync(process.execPath, [join(root, 'dist/cli/main.js'), ...args], { env, encoding: 'utf8' });
cli('migrate');
cli('users', 'create', '--email', 'agents@example.com', '--password', 'agents-password-1');
cli('credits', 'grant', '--email', 'agents@example.com', '--amount', '10');
const key = /sk-gw-[A-Za-z0-9_-]+/.exec(cli('keys', 'create', '--email', 'agents@example.com', '--name', 'agents'))[0];

children.push(
  spawn(
    process.execPath,
    [join(root, 'scripts/agent-capture-upstream.mjs'), join(work, 'upstream.jsonl'), String(upstreamPort)],
    { stdio: 'ignore' },
  ),
);
children.push(
  spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'serve'], {
    env: { ...env, PORT: String(gatewayPort), HOST: '127.0.0.1' },
    stdio: 'inherit',
  }),
);
for (let attempt = 0; ; attempt++) {
  const ready = await fetch(`${gateway}/v1/models`).then(
    (response) => response.ok,
    () => false,
  );
  if (ready) break;
  if (attempt > 100) throw new Error('the gateway did not start');
  await new Promise((resolve) => setTimeout(resolve, 200));
}

const home = (name) => {
  const dir = join(work, `home-${name}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const project = join(work, 'project');
mkdirSync(project, { recursive: true });

function run(name, command, args, extraEnv) {
  try {
    const out = execFileSync(command, args, {
      cwd: project,
      env: { ...process.env, ...extraEnv },
      encoding: 'utf8',
      timeout: 180_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { name, ok: /hello/i.test(out), out };
  } catch (error) {
    return { name, ok: false, out: `${error.stdout ?? ''}${error.stderr ?? ''}${error.message}` };
  }
}

const results = [];
for (const model of ['test/claude', 'test/gpt']) {
  results.push(
    run(`claude-code on ${model}`, bin('claude'), ['-p', 'say hello'], {
      HOME: home('claude'),
      ANTHROPIC_BASE_URL: gateway,
      ANTHROPIC_AUTH_TOKEN: key,
      ANTHROPIC_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    }),
  );
}
for (const model of ['test/gpt', 'test/claude']) {
  const codexHome = join(home(`codex-${model.replace('/', '-')}`), '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    `model = "${model}"\nmodel_provider = "gateway"\n\n[model_providers.gateway]\nname = "gateway"\nbase_url = "${gateway}/v1"\nenv_key = "GATEWAY_API_KEY"\nwire_api = "responses"\n`,
  );
  results.push(
    run(`codex on ${model}`, bin('codex'), ['exec', '--skip-git-repo-check', 'say hello'], {
      HOME: join(codexHome, '..'),
      CODEX_HOME: codexHome,
      GATEWAY_API_KEY: key,
    }),
  );
}
for (const model of ['test/gemini', 'test/claude']) {
  const geminiHome = home('gemini');
  mkdirSync(join(geminiHome, '.gemini'), { recursive: true });
  writeFileSync(
    join(geminiHome, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  results.push(
    run(`gemini-cli on ${model}`, bin('gemini'), ['-m', model, '-p', 'say hello'], {
      HOME: geminiHome,
      GOOGLE_GEMINI_BASE_URL: gateway,
      GEMINI_API_KEY: key,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    }),
  );
}

for (const result of results)
  console.log(`${result.ok ? 'ok  ' : 'FAIL'} ${result.name}${result.ok ? '' : `\n${result.out.slice(-2000)}`}`);
stop();
process.exit(results.every((result) => result.ok) ? 0 : 1);
