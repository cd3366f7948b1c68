/** A key's spend: this month's figure (for monthly_quota) and the lifetime total (for credit_limit). */
export interface MonthSpend {
  /** YYYY-MM monthSpend belongs to; null before the first spend. */
  month: string | null;
  monthSpend: number;
  totalSpend: number;
}

/**
 * Adds spend made in `month` (the same rule as key_spend in the store): the running month adds,
 * a later month starts over, an older one (a request that began before midnight) adds to the
 * total only.
 */
export function addMonthSpend(spend: MonthSpend, month: string, amount: number): void {
  if (spend.month === month) spend.monthSpend += amount;
  else if (spend.month === null || spend.month < month) {
    spend.month = month;
    spend.monthSpend = amount;
  }
  spend.totalSpend += amount;
}

/** This month's spend as of `month` (0 when the figure is from an earlier month). */
export function spendIn(spend: MonthSpend, month: string): number {
  return spend.month === month ? spend.monthSpend : 0;
}
