/**
 * A Lua script's contract with its callers, declared once: the names of its KEYS and ARGV in
 * order, and what each argument is. From the declaration come the Lua lines that bind every key
 * and argument to a named local at the top of the script, and the encoder that lays a call's
 * named fields out in the same order, so neither side ever counts positions by hand.
 *
 * Argument kinds and their Lua locals:
 * - `int`: an integer (money, milliseconds), sent as its decimal digits; `tonumber` in Lua.
 * - `int?`: the same or null (sent as ''; nil in Lua).
 * - `text`: a string, as is.
 * - `text?`: a string or null (sent as ''; nil in Lua).
 * - `flag`: a boolean (sent as 1/0; a Lua boolean).
 * A script may also take a list of keys after its named ones (`keyList`: a Lua table of them) and
 * a list of records after its named arguments (`argList`: a Lua table of tables with named fields).
 */
export type ArgKind = 'int' | 'int?' | 'text' | 'text?' | 'flag';

type ArgValue<Kind extends ArgKind> = Kind extends 'int'
  ? number
  : Kind extends 'int?'
    ? number | null
    : Kind extends 'text'
      ? string
      : Kind extends 'text?'
        ? string | null
        : boolean;

export type ArgSpec = Record<string, ArgKind>;
type ArgValues<Spec extends ArgSpec> = { [Name in keyof Spec]: ArgValue<Spec[Name]> };

export interface ScriptSpec<Keys extends string, Args extends ArgSpec, Item extends ArgSpec, Reply> {
  /** The ioredis command name the script is registered under. */
  name: string;
  keys: readonly Keys[];
  args: Args;
  /** Name of the Lua table holding the keys after the named ones (variable count). */
  keyList?: string;
  /** Name and fields of the Lua table of records after the named arguments (variable count). */
  argList?: { name: string; fields: Item };
  /** Helper functions placed before the bindings (they take everything as parameters). */
  prelude?: string;
  /** The script after the bindings. */
  body: string;
  /** The reply as the caller reads it (named fields). */
  decode(reply: unknown): Reply;
}

export interface ScriptCall<Keys extends string, Args extends ArgSpec, Item extends ArgSpec> {
  keys: Record<Keys, string>;
  args: ArgValues<Args>;
  keyList?: readonly string[];
  argList?: ReadonlyArray<ArgValues<Item>>;
}

type Wire = string | number;
/** What a client with defined commands looks like from here (ioredis adds them at run time). */
type ScriptHost = Record<string, (...args: Wire[]) => Promise<unknown>>;

/** Redis and Cluster clients both define commands (EVALSHA, falling back to EVAL). */
interface DefinesCommands {
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number }): void;
}

export class RedisScript<Keys extends string, Args extends ArgSpec, Item extends ArgSpec, Reply> {
  readonly lua: string;
  private readonly argNames: Array<keyof Args & string>;
  private readonly itemNames: Array<keyof Item & string>;
  private readonly variableKeys: boolean;

  constructor(private readonly spec: ScriptSpec<Keys, Args, Item, Reply>) {
    this.argNames = Object.keys(spec.args);
    this.itemNames = spec.argList ? Object.keys(spec.argList.fields) : [];
    this.variableKeys = spec.keyList !== undefined;
    this.lua = [spec.prelude ?? '', this.bindings(), spec.body].join('\n');
  }

  get name(): string {
    return this.spec.name;
  }

  /** Registers the script on a client (once per connection). */
  install(client: DefinesCommands): void {
    client.defineCommand(
      this.spec.name,
      this.variableKeys ? { lua: this.lua } : { lua: this.lua, numberOfKeys: this.spec.keys.length },
    );
  }

  /** The call's named fields laid out as the script reads them. */
  encode(call: ScriptCall<Keys, Args, Item>): Wire[] {
    const keys: string[] = this.spec.keys.map((name) => call.keys[name]);
    if (this.variableKeys) keys.push(...(call.keyList ?? []));
    const wire: Wire[] = this.variableKeys ? [keys.length, ...keys] : keys;
    for (const name of this.argNames) wire.push(encodeArg(this.spec.args[name], call.args[name]));
    for (const item of call.argList ?? [])
      for (const name of this.itemNames) wire.push(encodeArg(this.itemKind(name), item[name]));
    return wire;
  }

  decode(reply: unknown): Reply {
    return this.spec.decode(reply);
  }

  /** How many KEYS and ARGV a call has (scripts without a key or argument list). */
  get width(): { keys: number; args: number } {
    if (this.variableKeys || this.spec.argList) throw new Error(`${this.spec.name} has no fixed width`);
    return { keys: this.spec.keys.length, args: this.argNames.length };
  }

  /**
   * The script as a Lua function of its own KEYS and ARGV (parameters that shadow the globals), for
   * a script that runs several calls of it in one (redis-script-batch.ts). Its prelude is left out:
   * the caller places the helpers once.
   */
  asFunction(): string {
    return [`local function ${this.spec.name}(KEYS, ARGV)`, this.bindings(), this.spec.body, 'end'].join('\n');
  }

  /** Runs the script on a client it was installed on. */
  async run(client: unknown, call: ScriptCall<Keys, Args, Item>): Promise<Reply> {
    const command = (client as ScriptHost)[this.spec.name];
    return this.decode(await command.apply(client, this.encode(call)));
  }

  private itemKind(name: keyof Item & string): ArgKind {
    return (this.spec.argList?.fields as Item)[name];
  }

  /** `local <name> = KEYS[i]` / `ARGV[i]` for every key and argument, in declaration order. */
  private bindings(): string {
    const lines: string[] = [];
    this.spec.keys.forEach((name, index) => lines.push(`local ${name} = KEYS[${index + 1}]`));
    if (this.spec.keyList)
      lines.push(
        `local ${this.spec.keyList} = {}`,
        `for i = ${this.spec.keys.length + 1}, #KEYS do table.insert(${this.spec.keyList}, KEYS[i]) end`,
      );
    this.argNames.forEach((name, index) =>
      lines.push(`local ${name} = ${luaRead(this.spec.args[name], `ARGV[${index + 1}]`)}`),
    );
    const list = this.spec.argList;
    if (list) {
      const width = this.itemNames.length;
      const fields = this.itemNames.map(
        (name, offset) => `${name} = ${luaRead(list.fields[name], `ARGV[i + ${offset}]`)}`,
      );
      lines.push(
        `local ${list.name} = {}`,
        `for i = ${this.argNames.length + 1}, #ARGV, ${width} do`,
        `  table.insert(${list.name}, { ${fields.join(', ')} })`,
        'end',
      );
    }
    return lines.join('\n');
  }
}

export function defineScript<Keys extends string, Args extends ArgSpec, Reply, Item extends ArgSpec = ArgSpec>(
  spec: ScriptSpec<Keys, Args, Item, Reply>,
): RedisScript<Keys, Args, Item, Reply> {
  return new RedisScript(spec);
}

function luaRead(kind: ArgKind, slot: string): string {
  switch (kind) {
    // Arithmetic coerces the digits once; Lua 5.1's tonumber() parses them twice (lua_isnumber, then
    // lua_tonumber: two strtod calls), which callgrind of Redis 7.0 put among a script's larger
    // costs (issue 31, branch redis-bodies). The encoder sends an int as digits, never ''.
    case 'int':
      return `(${slot} + 0)`;
    case 'int?':
      return `(${slot} ~= '' and ${slot} + 0 or nil)`;
    case 'text':
      return slot;
    case 'text?':
      return `(${slot} ~= '' and ${slot} or nil)`;
    case 'flag':
      return `${slot} == '1'`;
  }
}

function encodeArg(kind: ArgKind, value: unknown): Wire {
  switch (kind) {
    case 'int':
    case 'int?':
      if (value === null) return '';
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new Error(`a Redis script argument is not a number: ${String(value)}`);
      return value;
    case 'text':
      return String(value);
    case 'text?':
      return value === null ? '' : String(value);
    case 'flag':
      return value ? '1' : '0';
  }
}

/** Reply helpers for decoders: Redis turns Lua numbers into integers and strings into bulk strings. */
export function replyList(reply: unknown, what: string): unknown[] {
  if (!Array.isArray(reply)) throw new Error(`unexpected reply from ${what}: ${JSON.stringify(reply)}`);
  return reply;
}

export function replyNumber(value: unknown): number {
  return Number(value);
}

export function replyText(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}
