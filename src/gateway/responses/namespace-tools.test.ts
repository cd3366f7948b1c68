import { describe, expect, it } from 'vitest';
import { flatToolName, restoreToolName } from './namespace-tools.js';

describe('namespace tool names', () => {
  it.each([
    ['mcp__docs__', 'search', 'mcp__docs__search'],
    ['crm', 'find', 'crm__find'],
  ])('%s + %s → %s, and back', (namespace, name, flat) => {
    expect(flatToolName(namespace, name)).toBe(flat);
    const map = new Map([[flat, { namespace, name }]]);
    expect(restoreToolName(map, flat)).toEqual({ name, namespace });
  });

  it('a name that was not flattened stays as it is', () => {
    expect(restoreToolName(new Map(), 'get_weather')).toEqual({ name: 'get_weather' });
    expect(restoreToolName(undefined, 'mcp__x__y')).toEqual({ name: 'mcp__x__y' });
  });
});
