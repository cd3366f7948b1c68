import { describe, expect, it } from 'vitest';
import { routingDirectory } from '../../test/helpers/routing-fixtures.js';
import { ModelDirectory } from './model-directory.js';

describe('ModelDirectory.candidatesFor', () => {
  it('orders a model once and answers the same list after that', () => {
    const directory = routingDirectory();
    const model = directory.get('chat/a')!;
    const first = directory.candidatesFor(model);
    expect(first.map((candidate) => candidate.provider.id)).toEqual(['p1', 'p3', 'p2']);
    expect(directory.candidatesFor(model)).toBe(first);
  });

  it('orders again after a reload (replaceWith), even for the same model object', () => {
    const directory = routingDirectory();
    const model = directory.get('chat/b')!;
    expect(directory.candidatesFor(model)).toHaveLength(1);
    // The same model, now without its provider: a list kept from before the reload would still name it.
    directory.replaceWith(new ModelDirectory({ models: [model], providers: [] }));
    expect(directory.candidatesFor(model)).toEqual([]);
  });
});
