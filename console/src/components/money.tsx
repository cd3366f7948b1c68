import { formatMoney, formatMoneyExact } from '../format/format';

/** An amount as the console shows it, with the exact figure as a tooltip when the shown one is cut short. */
export function Money({ amount, currency = 'USD' }: { amount: number; currency?: string }) {
  const shown = formatMoney(amount, currency);
  const exact = formatMoneyExact(amount, currency);
  return shown === exact ? <>{shown}</> : <span title={`Exactly ${exact}`}>{shown}</span>;
}
