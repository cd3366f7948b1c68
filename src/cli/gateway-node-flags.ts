/**
 * V8's young generation (two semi-spaces) for a gateway process, in MB each. Node 24 sizes it from
 * the host's memory (2 × 64 MB on a 24 GB machine) and a busy gateway grows it to that within
 * seconds and keeps it; the maximum is fixed when the heap is set up, so it is a start flag, not a
 * setting. 32 is the measured middle (docs/benchmarks.md, "the young generation's size"): about
 * 60 MB less RSS than V8's default with 1,000 open streams for no measurable CPU per request,
 * where 16 saved about 40 MB more but cost 6–8 % more CPU per request in twice as many scavenges.
 */
const GATEWAY_SEMI_SPACE_MB = 32;

const SEMI_SPACE_FLAG = '--max-semi-space-size';

/**
 * The Node flags a gateway process starts with. The one home of the value: the benchmark's gateway
 * child and `serve --workers` read it here; the Dockerfile's NODE_OPTIONS and `npm start`
 * (package.json) carry the same text, which test/deploy/deploy-files.test.ts holds to this.
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = [`${SEMI_SPACE_FLAG}=${GATEWAY_SEMI_SPACE_MB}`];

/**
 * The Node flags of `serve --workers`' workers: the primary's own (cluster's default), plus
 * GATEWAY_NODE_FLAGS unless the young generation was sized already, on the primary's command line
 * or in NODE_OPTIONS (workers inherit the environment): a choice made at start wins, and a primary
 * started as plain `node dist/cli/main.js` still gets workers sized as the image's.
 */
export function workerExecArgv(execArgv: readonly string[], nodeOptions = ''): string[] {
  const sized = [...execArgv, ...nodeOptions.split(/\s+/)].some(
    (flag) => flag === SEMI_SPACE_FLAG || flag.startsWith(`${SEMI_SPACE_FLAG}=`),
  );
  return sized ? [...execArgv] : [...execArgv, ...GATEWAY_NODE_FLAGS];
}

/**
 * The environment a gateway process starts with, beside its flags: glibc malloc's arena count.
 * glibc gives threads that allocate at once arenas of their own, up to 8 per core, each one
 * keeping its freed memory; with 1,000 open streams a gateway's threads (libuv's pool, V8's
 * helpers, the SQLite checkpoint worker) held ~40 MB outside V8's heap and the main arena, and
 * two arenas cut that by 10–25 MB (docs/benchmarks.md, "what the RSS is made of"). The C library
 * reads it once, when the process starts, so it is set where a gateway process is launched: the
 * image's ENV, `serve --workers`' workers and the benchmark's gateway child read it here
 * (test/deploy/deploy-files.test.ts holds the image to it). Ignored by other C libraries (musl,
 * macOS, Windows).
 */
export const GATEWAY_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

/**
 * What a launched gateway process adds to the environment it inherits: GATEWAY_ENV, except a
 * variable the launcher's own environment sets already (a choice made at start wins).
 */
export function gatewayEnv(inherited: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(GATEWAY_ENV).filter(([name]) => inherited[name] === undefined));
}
