import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { randomId } from '../shared/ids.js';
import { startFloor, startOurGateway, startPortkey, type BenchTarget } from './bench-processes.js';

export const TARGET_IDS = [
  'direct',
  'floor',
  'gateway-sqlite',
  'gateway-sqlite-off',
  'gateway-postgres',
  'gateway-postgres-off',
  'portkey',
] as const;
export type TargetId = (typeof TARGET_IDS)[number];

/** Our gateway with metering off (`buildApp({ metering: false })`): measured for CPU only, the reference of "metering on ÷ off". */
export const isMeteringOff = (id: string) => id.endsWith('-off');

/** The PostgreSQL and Redis the machine runs (CI starts them); override for another machine. */
const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TargetContext {
  upstreamUrl: string;
  /** A scratch folder for SQLite files. */
  scratch: string;
  cpuProfileDir?: string;
  /** Node flags for our gateway instead of its shipped ones (A/B runs). */
  gatewayNodeFlags?: readonly string[];
  /** Receives our gateway's stdout. */
  gatewayOutput?: (chunk: Buffer) => void;
}

export interface OpenedTarget {
  target: BenchTarget;
  /** Stops the target and removes what it stored (SQLite file, PostgreSQL schema). */
  close(): Promise<void>;
}

async function onPostgres(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Starts one gateway under test; `direct` needs no process and is built by the caller. */
export async function openTarget(id: Exclude<TargetId, 'direct'>, context: TargetContext): Promise<OpenedTarget> {
  if (id === 'portkey' || id === 'floor') {
    const target = await (id === 'portkey' ? startPortkey : startFloor)(context.upstreamUrl);
    return { target, close: () => target.stop() };
  }
  const metering = !isMeteringOff(id);
  const common = {
    upstreamUrl: context.upstreamUrl,
    metering,
    cpuProfileDir: context.cpuProfileDir,
    nodeFlags: context.gatewayNodeFlags,
    onOutput: context.gatewayOutput,
  };
  const suffix = metering ? '' : ', metering off';
  if (id === 'gateway-sqlite' || id === 'gateway-sqlite-off') {
    const folder = mkdtempSync(join(context.scratch, 'sqlite-'));
    const cleanup = () => rmSync(folder, { recursive: true, force: true });
    const target = await startOurGateway({
      ...common,
      id,
      label: `ours, SQLite${suffix}`,
      databaseUrl: `sqlite:${join(folder, 'gateway.db')}`,
    }).catch((error: unknown) => {
      cleanup();
      throw error;
    });
    return {
      target,
      async close() {
        await target.stop();
        cleanup();
      },
    };
  }
  // A schema of its own, dropped afterwards, so the benchmark never touches anyone's tables.
  const schema = `bench_${randomId(12).toLowerCase()}`;
  await onPostgres(`CREATE SCHEMA ${schema}`);
  const dropSchema = () => onPostgres(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const target = await startOurGateway({
    ...common,
    id,
    label: `ours, PostgreSQL + Redis${suffix}`,
    databaseUrl: BENCH_POSTGRES_URL,
    schema,
    redisUrl: BENCH_REDIS_URL,
  }).catch(async (error: unknown) => {
    await dropSchema();
    throw error;
  });
  return {
    target,
    async close() {
      await target.stop();
      await dropSchema();
    },
  };
}
