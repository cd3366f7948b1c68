import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { parseConfigSection, sectionError } from './config-section.js';
import { loadConfig } from './load-config.js';

const load = (text: string) => loadConfig({ text, env: {}, cwd: '/nonexistent' }).config;

const Section = Type.Object(
  {
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    mode: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
    rate: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.String()])),
    nested: Type.Optional(Type.Object({ id: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: true },
);

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfigSection', () => {
  it('returns the section typed, and an absent section as empty', () => {
    const config = load('routing:\n  retries: 2\n  other_feature_field: x\n');
    expect(parseConfigSection('routing', config.sections.routing, Section)).toMatchObject({ retries: 2 });
    expect(parseConfigSection('routing', undefined, Section)).toEqual({});
  });

  it('names the field, the file and the line of a section written in the file', () => {
    const error = errorOf(() =>
      parseConfigSection('routing', load('server:\n  port: 80\nrouting:\n  retries: 99\n').sections.routing, Section),
    );
    expect(error.message).toBe('routing.retries must be <= 10 (inline text, line 4)');
    expect({ field: error.field, file: error.file, line: error.line }).toEqual({
      field: 'routing.retries',
      file: 'inline text',
      line: 4,
    });
  });

  it('folds the alternatives of a union into one line', () => {
    const section = load('routing:\n  mode: maybe\n  rate: [1]\n').sections.routing;
    expect(errorOf(() => parseConfigSection('routing', section, Section)).message).toBe(
      'Invalid configuration:\n' +
        '  routing.mode must be one of: open, closed (inline text, line 2)\n' +
        '  routing.rate must be number or string (inline text, line 3)',
    );
  });

  it('places a missing field on the line of the object that lacks it', () => {
    const section = load('routing:\n  nested:\n    name: x\n').sections.routing;
    expect(errorOf(() => parseConfigSection('routing', section, Section)).problems).toEqual([
      { field: 'routing.nested.id', problem: 'is required', file: 'inline text', line: 2 },
      { field: 'routing.nested.name', problem: 'is not a known setting', file: 'inline text', line: 3 },
    ]);
  });

  it('locates the checks a schema cannot express the same way', () => {
    const section = load('billing:\n  currencies:\n    usd: 1\n    eur: 2\n').sections.billing;
    expect(sectionError(section, 'billing.currencies.eur', 'must be above 0').message).toBe(
      'billing.currencies.eur must be above 0 (inline text, line 4)',
    );
  });

  it('still names the field of a section built in code, without a file', () => {
    expect(errorOf(() => parseConfigSection('limits', { mode: 'maybe' }, Section)).message).toBe(
      'limits.mode must be one of: open, closed',
    );
  });
});

describe('loadConfig errors', () => {
  it('reads like the README promises', () => {
    expect(errorOf(() => load('# gateway\n\nserver:\n  port: "eighty"\n')).message).toBe(
      'server.port must be integer (inline text, line 4)',
    );
  });

  it('names the environment variable when the value came from there', () => {
    expect(errorOf(() => loadConfig({ env: { PORT: 'x' }, cwd: '/nonexistent' })).field).toBe('PORT');
  });
});
