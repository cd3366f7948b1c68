import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ConfigError, type ConfigProblem } from './config-error.js';
import { joinFieldPath, lineOfField, originOf, type ConfigOrigin } from './config-origin.js';

/**
 * One way to check configuration: every part of the file (server, providers, models, and each
 * feature's section) is a TypeBox schema checked by the same Ajv validator, and every failure is a
 * ConfigError naming the field, the file and the line. Checks a schema cannot say (unique ids,
 * min ≤ max, exact decimals) throw `sectionError` so they read the same.
 */
const ajv = new Ajv({ allErrors: true, strict: false });
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

/** Validates `config.sections.<name>` (absent: an empty section) and returns it typed. */
export function parseConfigSection<S extends TSchema>(name: string, section: unknown, schema: S): Static<S> {
  const value = section ?? {};
  validateConfig(value, schema, name, originOf(section));
  return value;
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
  return { ...problem, file: origin.file, ...(line !== undefined ? { line } : {}) };
}

/** Ajv's errors → one readable problem per field, `anyOf` alternatives folded into one line. */
export function describeSchemaErrors(
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
    const key = `${field} ${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(locate({ field: field || '(root)', problem }, origin));
  }
  return problems;
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
