import { Type, type Static, type TArray, type TObject, type TOptional, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ConfigError, type ConfigProblem } from './config-error.js';
import { joinFieldPath, lineOfField, originOf, type ConfigOrigin } from './config-origin.js';

/**
 * One way to check configuration: every part of the file (server, providers, models, and each
 * feature's section) is a TypeBox schema checked by the same Ajv validator, and every failure is a
 * ConfigError naming the field, the file and the line. Checks a schema cannot say (unique ids,
 * min ≤ max, exact decimals) throw `sectionError` so they read the same.
 */
// verbose: a failing schema's own `problem` wording (below) is read from the error.
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** At most this many problems are listed at once: enough to fix a file, short enough to read. */
const MAX_PROBLEMS = 5;

export function validateConfig<S extends TSchema>(
  value: unknown,
  schema: S,
  prefix: string,
  origin: ConfigOrigin | undefined,
): asserts value is Static<S> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(value)) return;
  const problems = describeSchemaErrors(validate.errors ?? [], prefix, origin);
  throw new ConfigError(problems.slice(0, MAX_PROBLEMS));
}

/**
 * A setting that may be left out, and the value it then takes: the one place its default is
 * written. `settleConfigSection` fills it in, and `Settled` types it as present.
 */
export function withDefault<T extends TSchema>(schema: T, value: Static<T>) {
  return Object.assign(Type.Optional(schema), { default: value });
}

type Props<S extends TObject> = S['properties'];
type OptionalKeys<S extends TObject> = {
  [K in keyof Props<S>]: Props<S>[K] extends { default: unknown }
    ? never
    : Props<S>[K] extends TOptional<TSchema>
      ? K
      : never;
}[keyof Props<S>];
type SettledValue<T> = T extends TObject
  ? Settled<T>
  : T extends TArray<infer Item>
    ? SettledValue<Item>[]
    : T extends TSchema
      ? Static<T>
      : never;

/** A section after `settleConfigSection`: every setting with a default is present, in nested objects too. */
export type Settled<S extends TObject> = {
  [K in Exclude<keyof Props<S>, OptionalKeys<S>>]: SettledValue<Props<S>[K]>;
} & { [K in OptionalKeys<S>]?: SettledValue<Props<S>[K]> };

// Each section object is checked once per schema; a feature asking again gets the same answer.
const parsed = new WeakMap<object, Map<TSchema, unknown>>();

/** Validates `config.sections.<name>` (absent: an empty section) and returns it typed. */
export function parseConfigSection<S extends TSchema>(name: string, section: unknown, schema: S): Static<S> {
  const value = section ?? {};
  validateConfig(value, schema, name, originOf(section));
  return value;
}

/**
 * The one way a feature reads its section: checked against its schema (field, file and line on a
 * problem), with the schema's defaults filled in on a copy (the section as written stays as it was,
 * so a reload can compare it). Parsed once per section object.
 */
export function settleConfigSection<S extends TObject>(name: string, section: unknown, schema: S): Settled<S> {
  const key = typeof section === 'object' && section !== null ? section : undefined;
  const known = key ? parsed.get(key)?.get(schema) : undefined;
  if (known !== undefined && isSettled(known, schema)) return known;
  const checked = parseConfigSection(name, section, schema);
  const settled = Value.Default(schema, Value.Clone(checked));
  if (!isSettled(settled, schema)) throw new ConfigError({ field: name, problem: 'could not be read' });
  if (key) parsed.set(key, (parsed.get(key) ?? new Map()).set(schema, settled));
  return settled;
}

/** A value already checked against `schema` (the whole file is checked at once), with its defaults filled in on a copy. */
export function applyDefaults<S extends TObject>(schema: S, checked: Static<S>): Settled<S> {
  const settled = Value.Default(schema, Value.Clone(checked));
  if (!isSettled(settled, schema))
    throw new ConfigError({
      field: null,
      problem: 'has a setting without its default',
    });
  return settled;
}

/** Every defaulted setting is present (Value.Default put it there), in nested objects and arrays too: what `Settled` promises. */
function isSettled<S extends TObject>(value: unknown, schema: S): value is Settled<S> {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(schema.properties).every(([field, property]) => {
    const setting: unknown = Reflect.get(value, field);
    if ('default' in property && setting === undefined) return false;
    return setting === undefined || isSettledValue(setting, property);
  });
}

function isSettledValue(value: unknown, schema: TSchema): boolean {
  if (isObjectSchema(schema)) return isSettled(value, schema);
  if (isArraySchema(schema) && Array.isArray(value)) return value.every((item) => isSettledValue(item, schema.items));
  return true;
}

function isArraySchema(schema: TSchema): schema is TArray {
  return schema.type === 'array' && typeof schema.items === 'object' && schema.items !== null;
}

function isObjectSchema(schema: TSchema): schema is TObject {
  return schema.type === 'object' && typeof schema.properties === 'object';
}

/** A problem a schema cannot express, located like the schema's own: `billing.min_amount must …`. */
export function sectionError(section: unknown, field: string, problem: string): ConfigError {
  return configProblemAt(originOf(section), field, problem);
}

export function configProblemAt(origin: ConfigOrigin | undefined, field: string, problem: string): ConfigError {
  return new ConfigError(locate({ field, problem }, origin));
}

function locate(problem: ConfigProblem, origin: ConfigOrigin | undefined): ConfigProblem {
  if (!origin) return problem;
  const line = problem.field ? lineOfField(origin, problem.field) : undefined;
  return {
    ...problem,
    file: origin.file,
    ...(line !== undefined ? { line } : {}),
  };
}

/** Ajv's errors → one readable problem per field, `anyOf` alternatives folded into one line. */
function describeSchemaErrors(
  errors: readonly ErrorObject[],
  prefix: string,
  origin: ConfigOrigin | undefined,
): ConfigProblem[] {
  const unions = errors.filter((error) => error.keyword === 'anyOf').map((error) => `${error.schemaPath}/`);
  const inUnion = (error: ErrorObject) => unions.some((schemaPath) => error.schemaPath.startsWith(schemaPath));
  const seen = new Set<string>();
  const problems: ConfigProblem[] = [];
  for (const error of errors) {
    if (inUnion(error)) continue;
    let field = fieldOf(prefix, error.instancePath);
    let problem = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties') {
      field = joinFieldPath(field, (error.params as { additionalProperty: string }).additionalProperty);
      problem = 'is not a known setting';
    } else if (error.keyword === 'required') {
      field = joinFieldPath(field, (error.params as { missingProperty: string }).missingProperty);
      problem = 'is required';
    } else if (error.keyword === 'anyOf') {
      problem = alternatives(errors.filter((branch) => branch.schemaPath.startsWith(`${error.schemaPath}/`)));
    }
    if (error.keyword !== 'additionalProperties' && error.keyword !== 'required')
      problem = wordedProblem(error) ?? problem;
    const key = `${field} ${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(locate({ field: field || '(root)', problem }, origin));
  }
  return problems;
}

/** A setting's schema may word its own problem: `Type.Boolean({ problem: 'must be true or false' })`. */
function wordedProblem(error: ErrorObject): string | undefined {
  const schema: unknown = error.parentSchema;
  if (typeof schema !== 'object' || schema === null || !('problem' in schema)) return undefined;
  return typeof schema.problem === 'string' ? schema.problem : undefined;
}

/** `must be <= 1 or string`; a union of literals reads `must be one of: open, closed`. */
function alternatives(branches: readonly ErrorObject[]): string {
  const allowed = branches
    .filter((branch) => branch.keyword === 'const')
    .map((branch) => String((branch.params as { allowedValue: unknown }).allowedValue));
  const others = branches.filter((branch) => branch.keyword !== 'const').map((branch) => branch.message ?? '');
  const parts = [
    ...new Set([...(allowed.length > 0 ? [`must be one of: ${allowed.join(', ')}`] : []), ...others]),
  ].filter(Boolean);
  if (parts.length === 0) return 'is invalid';
  // "must be <= 1 or must be string" reads better as "must be <= 1 or string".
  if (parts.every((part) => part.startsWith('must be ')))
    return `must be ${parts.map((part) => part.slice('must be '.length)).join(' or ')}`;
  return parts.join(' or ');
}

function fieldOf(prefix: string, instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<string>((path, part) => joinFieldPath(path, /^\d+$/.test(part) ? Number(part) : part), prefix);
}
