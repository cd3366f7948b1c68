/** CONTRACT §5: pending → paid | failed | expired | canceled, later paid → refunded. Nothing else. */
export type OrderStatus = 'pending' | 'paid' | 'failed' | 'expired' | 'canceled' | 'refunded';

export const ORDER_STATUSES: readonly OrderStatus[] = ['pending', 'paid', 'failed', 'expired', 'canceled', 'refunded'];

const MOVES: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ['paid', 'failed', 'expired', 'canceled'],
  paid: ['refunded'],
  failed: [],
  expired: [],
  canceled: [],
  refunded: [],
};

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return MOVES[from].includes(to);
}

/** Where an order may have come from to reach `to` (for compare-and-set updates). */
export function sourcesOf(to: OrderStatus): OrderStatus[] {
  return ORDER_STATUSES.filter((from) => canMove(from, to));
}
