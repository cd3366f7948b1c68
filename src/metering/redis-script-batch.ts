import { ioredis } from '../store/ioredis-module.js';
import type { RedisClient } from '../store/redis-client.js';
import { writeBatchedNow } from '../store/open-redis.js';
import type { ArgSpec, RedisScript, ScriptCall } from './redis-script.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- scripts of every shape share one batch */
type AnyScript = RedisScript<any, any, any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */
type Wire = string | number;
type ScriptHost = Record<string, (...args: Wire[]) => Promise<unknown>>;

/**
 * One script that runs many calls of other scripts (fixed-width ones: admission, settlement) in
 * one EVALSHA, in the order given, and answers with each call's own reply. Each member runs as a
 * Lua function of its own KEYS and ARGV (`RedisScript.asFunction`), so its body is the very one a
 * call of its own runs. Each call runs under `pcall`: one that fails (a Redis error) answers with
 * its error and the others go on, as separate calls would; like a separate call, what it wrote
 * before failing stays (Redis scripts do not roll back). Every key of a batch must hash to one
 * slot on a cluster (callers group by shard).
 *
 * Wire: KEYS are the calls' keys one after another; ARGV per call is the member's number (1-based)
 * and then its arguments. The widths come from the members' declarations.
 */
export class BatchScript {
  readonly lua: string;
  private readonly members: Map<AnyScript, number>;

  constructor(
    readonly name: string,
    /** Helpers every member's body uses (their preludes, each placed once). */
    prelude: string,
    scripts: readonly AnyScript[],
  ) {
    this.members = new Map(scripts.map((script, index) => [script, index + 1]));
    const widths = scripts.map((script) => `{ ${script.width.keys}, ${script.width.args} }`).join(', ');
    this.lua = [
      prelude,
      ...scripts.map((script) => script.asFunction()),
      `local members = { ${scripts.map((script) => script.name).join(', ')} }`,
      `local widths = { ${widths} }`,
      `local replies = {}
local k, a = 1, 1
while a <= #ARGV do
  local member = ARGV[a] + 0
  local width = widths[member]
  local ok, reply = pcall(members[member], { unpack(KEYS, k, k + width[1] - 1) }, { unpack(ARGV, a + 1, a + width[2]) })
  if ok then
    replies[#replies + 1] = reply
  elseif type(reply) == 'table' and reply.err then
    replies[#replies + 1] = reply
  else
    replies[#replies + 1] = redis.error_reply(tostring(reply))
  end
  k = k + width[1]
  a = a + width[2] + 1
end
return replies`,
    ].join('\n');
  }

  install(client: { defineCommand(name: string, definition: { lua: string }): void }): void {
    client.defineCommand(this.name, { lua: this.lua });
  }

  /** The calls laid out as the batch reads them (the key count first, as for any variable-key script). */
  encode(calls: ReadonlyArray<{ script: AnyScript; wire: Wire[] }>): Wire[] {
    const keys: Wire[] = [];
    const args: Wire[] = [];
    for (const { script, wire } of calls) {
      const member = this.members.get(script);
      if (member === undefined) throw new Error(`${script.name} is not part of ${this.name}`);
      const { keys: width } = script.width;
      for (let index = 0; index < width; index++) keys.push(wire[index]!);
      args.push(member);
      for (let index = width; index < wire.length; index++) args.push(wire[index]!);
    }
    return [keys.length, ...keys, ...args];
  }

  async run(client: RedisClient, calls: ReadonlyArray<{ script: AnyScript; wire: Wire[] }>): Promise<unknown[]> {
    const reply = await (client as unknown as ScriptHost)[this.name]!.apply(client, this.encode(calls));
    if (!Array.isArray(reply) || reply.length !== calls.length)
      throw new Error(`unexpected reply from ${this.name}: ${JSON.stringify(reply)}`);
    return reply;
  }
}

/**
 * At most this many steps per call: a call runs atomically in Redis, blocking it meanwhile, and
 * has one command timeout (redis.command_timeout_ms) for all its steps; a thousand streams ending
 * in one turn leave as ten calls, not one.
 */
const MAX_STEPS = 100;

interface Queued {
  script: AnyScript;
  wire: Wire[];
  resolve(reply: unknown): void;
  reject(error: unknown): void;
}

/**
 * Sends script calls (admissions, settlements) so that, under load, the calls made in one turn of
 * the event loop leave as one script call per group (one hash slot: a shard on a cluster, every
 * shard on a single server) instead of one each (issue 31): Redis pays a script call's own cost
 * (EVALSHA, the Lua call, the reply) once per batch, the gateway one command, one timer and one
 * reply to parse. Each caller still gets its own reply, and waits for it as before.
 *
 * A call made when none of this batcher's calls is in flight, none was answered this turn and
 * none is waiting for the turn's end is sent at once as a call of its own (the script itself, as
 * without batching): one request at a time waits for nothing, as Nagle's rule and `batchWrites`
 * do. Behind it, the calls of the turn wait for its end (a `setImmediate`, where `batchWrites`
 * would have written them anyway) and leave together; a batch of one is the script itself.
 */
export class ScriptBatcher {
  private readonly queues = new Map<number, Queued[]>();
  private flushing = false;
  private inFlight = 0;
  private answeredThisTurn = false;
  private readonly perShard: boolean;
  private readonly answered = () => {
    this.inFlight--;
    if (this.answeredThisTurn) return;
    this.answeredThisTurn = true;
    setImmediate(() => (this.answeredThisTurn = false));
  };
  /** Calls and script calls sent (tests, measurements). */
  readonly sent = { calls: 0, commands: 0 };

  constructor(
    private readonly client: RedisClient,
    private readonly batch: BatchScript,
  ) {
    // A cluster runs a script only on keys of one slot; a single server takes any keys.
    this.perShard = client instanceof ioredis().Cluster;
  }

  run<Keys extends string, Args extends ArgSpec, Item extends ArgSpec, Reply>(
    shard: number,
    script: RedisScript<Keys, Args, Item, Reply>,
    call: ScriptCall<Keys, Args, Item>,
  ): Promise<Reply> {
    if (!this.flushing && this.inFlight === 0 && !this.answeredThisTurn) {
      this.sent.calls++;
      this.sent.commands++;
      this.inFlight++;
      const reply = script.run(this.client, call);
      reply.then(this.answered, this.answered);
      return reply;
    }
    const wire = script.encode(call);
    return new Promise<Reply>((resolve, reject) => {
      const group = this.perShard ? shard : 0;
      let queue = this.queues.get(group);
      if (!queue) this.queues.set(group, (queue = []));
      queue.push({ script, wire, resolve: (reply) => resolve(reply as Reply), reject });
      if (this.flushing) return;
      this.flushing = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.flushing = false;
    for (const [group, queue] of this.queues) {
      this.queues.delete(group);
      for (let start = 0; start < queue.length; start += MAX_STEPS) this.send(queue.slice(start, start + MAX_STEPS));
    }
    // Sent at the turn's end already: written now, not held for the next turn's (batchWrites).
    writeBatchedNow(this.client);
  }

  private send(queue: Queued[]): void {
    this.sent.calls += queue.length;
    this.sent.commands++;
    this.inFlight++;
    if (queue.length === 1) {
      const [only] = queue as [Queued];
      const host = (this.client as unknown as ScriptHost)[only.script.name]!;
      host.apply(this.client, only.wire).then(
        (reply) => {
          this.answered();
          settle(only, reply);
        },
        (error: unknown) => {
          this.answered();
          only.reject(error);
        },
      );
      return;
    }
    this.batch.run(this.client, queue).then(
      (replies) => {
        this.answered();
        for (let index = 0; index < queue.length; index++) settle(queue[index]!, replies[index]);
      },
      (error: unknown) => {
        this.answered();
        for (const queued of queue) queued.reject(error);
      },
    );
  }
}

/** One call's reply: its error, or what its script's decoder makes of it. */
function settle(queued: Queued, reply: unknown): void {
  if (reply instanceof Error) {
    queued.reject(reply);
    return;
  }
  try {
    queued.resolve(queued.script.decode(reply));
  } catch (error) {
    queued.reject(error);
  }
}
