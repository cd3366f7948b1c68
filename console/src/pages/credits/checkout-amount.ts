/** The add-credits amount as typed → a number the API accepts, or why not (the API checks again). */
export function parseCreditAmount(
  text: string,
  limits: { min: number; max: number } = { min: 5, max: 10_000 },
): { amount: number; problem: null } | { amount: null; problem: string } {
  const trimmed = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (!/^\d+(\.\d{1,2})?$/.test(trimmed)) return { amount: null, problem: 'Enter an amount such as 25 or 12.50.' };
  const amount = Number(trimmed);
  if (amount < limits.min) return { amount: null, problem: `The smallest purchase is ${limits.min}.` };
  if (amount > limits.max)
    return { amount: null, problem: `The largest purchase is ${limits.max.toLocaleString('en-US')}.` };
  return { amount, problem: null };
}

/** Where the console remembers the order being paid, for the result page after the payment page. */
export const PENDING_ORDER_KEY = 'console-pending-order';
