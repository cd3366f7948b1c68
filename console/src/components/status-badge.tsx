const TONES: Record<string, string> = {
  active: 'success',
  paid: 'success',
  ok: 'success',
  healthy: 'success',
  pending: 'warning',
  degraded: 'warning',
  disabled: 'danger',
  expired: 'danger',
  failed: 'danger',
  canceled: 'danger',
  down: 'danger',
  refunded: 'accent',
};

/** A status word in a coloured pill; the word itself carries the meaning, the colour only helps. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${TONES[status] ?? ''}`}>{status}</span>;
}
