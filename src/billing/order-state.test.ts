import { describe, expect, it } from 'vitest';
import { canMove, ORDER_STATUSES, sourcesOf } from './order-state.js';

describe('order state machine', () => {
  it('allows exactly the moves of CONTRACT §5', () => {
    const allowed = ORDER_STATUSES.flatMap((from) =>
      ORDER_STATUSES.filter((to) => canMove(from, to)).map((to) => `${from}→${to}`),
    );
    expect(allowed.sort()).toEqual([
      'paid→refunded',
      'pending→canceled',
      'pending→expired',
      'pending→failed',
      'pending→paid',
    ]);
  });

  it('never leaves a final state and never goes back to pending', () => {
    for (const final of ['failed', 'expired', 'canceled', 'refunded'] as const) {
      for (const to of ORDER_STATUSES) expect(canMove(final, to)).toBe(false);
    }
    expect(sourcesOf('pending')).toEqual([]);
    expect(sourcesOf('refunded')).toEqual(['paid']);
  });
});
