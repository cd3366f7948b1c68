/**
 * Command line for the mock upstream, for load-testing a deployment without paying a provider:
 *   node dist/mock-upstream/cli.js --port 9100 --latency-ms 200 --chunks 50
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseMockScenario, startMockUpstream, type MockScenario } from './mock-upstream.js';

export const USAGE = `Usage: mock-upstream [options]

A fake OpenAI-compatible upstream (POST /v1/chat/completions, POST /v1/embeddings, GET /v1/models).
It answers response_format json_schema / json_object with JSON valid against the schema, and
tool_choice "required" or a named tool with a call whose arguments match the tool's parameters.

  --port <n>              port to listen on (default $MOCK_UPSTREAM_PORT, else 9100; 0 picks a free one)
  --host <address>        address to bind (default 127.0.0.1)
  --latency-ms <n>        delay before each answer (default 0)
  --chunks <n>            content chunks per streamed answer (default 20)
  --tokens-per-chunk <n>  words per chunk (default 1)
  --chunk-gap-ms <n>      delay between streamed chunks (default 0)
  --fail-status <code>    answer every chat request with this HTTP status, e.g. 500 or 429
  --scenario <json>       a full scenario as JSON; the flags above take precedence
  --help                  show this text

A request can override the scenario with the header  x-mock-scenario: <json>.`;

export interface MockUpstreamCliOptions {
  port: number;
  host: string;
  scenario: MockScenario;
  help: boolean;
}

function wholeNumber(
  flag: string,
  text: string | undefined,
  minimum: number,
  maximum = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < minimum || value > maximum) {
    const range = maximum === Number.MAX_SAFE_INTEGER ? `of at least ${minimum}` : `from ${minimum} to ${maximum}`;
    throw new Error(`--${flag} must be a whole number ${range}, got "${text}"`);
  }
  return value;
}

function scenarioFromJson(text: string | undefined): MockScenario {
  if (text === undefined) return {};
  try {
    return parseMockScenario(JSON.parse(text));
  } catch (error) {
    throw new Error(`--scenario: ${(error as Error).message}`);
  }
}

/** Turns argv into options; throws an Error naming the bad flag. */
export function parseMockUpstreamArguments(
  argv: string[],
  env: Record<string, string | undefined> = {},
): MockUpstreamCliOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'latency-ms': { type: 'string' },
      chunks: { type: 'string' },
      'tokens-per-chunk': { type: 'string' },
      'chunk-gap-ms': { type: 'string' },
      'fail-status': { type: 'string' },
      scenario: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const failStatus = wholeNumber('fail-status', values['fail-status'], 200, 599);
  const fromFlags: MockScenario = {
    latencyMs: wholeNumber('latency-ms', values['latency-ms'], 0),
    chunkCount: wholeNumber('chunks', values.chunks, 0),
    tokensPerChunk: wholeNumber('tokens-per-chunk', values['tokens-per-chunk'], 1),
    chunkGapMs: wholeNumber('chunk-gap-ms', values['chunk-gap-ms'], 0),
    failure: failStatus === undefined ? undefined : { kind: 'status', status: failStatus },
  };
  const flagsGiven = Object.fromEntries(Object.entries(fromFlags).filter(([, value]) => value !== undefined));
  const scenario: MockScenario = { ...scenarioFromJson(values.scenario), ...flagsGiven };
  return {
    port:
      wholeNumber('port', values.port, 0, 65535) ??
      wholeNumber('port (from MOCK_UPSTREAM_PORT)', env.MOCK_UPSTREAM_PORT || undefined, 0, 65535) ??
      9100,
    host: values.host ?? '127.0.0.1',
    scenario,
    help: values.help ?? false,
  };
}

async function main(): Promise<void> {
  let options: MockUpstreamCliOptions;
  try {
    options = parseMockUpstreamArguments(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`mock upstream: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    console.log(USAGE);
    return;
  }
  // Nobody reads the recorded requests of a standalone server; skipping them keeps load tests lean.
  const upstream = await startMockUpstream({
    port: options.port,
    host: options.host,
    scenario: options.scenario,
    recordRequests: false,
  });
  console.log(`mock upstream listening on ${upstream.url}`);
  const shutDown = () => {
    upstream.close().then(
      () => console.log('mock upstream stopped'),
      (error: unknown) => {
        console.error(`mock upstream: failed to stop cleanly: ${String(error)}`);
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', shutDown);
  process.once('SIGTERM', shutDown);
}

/** True when this file is the program node was started with, not a module imported by tests. */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main().catch((error: unknown) => {
    console.error(`mock upstream: ${(error as Error).message ?? String(error)}`);
    process.exitCode = 1;
  });
}
