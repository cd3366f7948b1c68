import type { CompletionOutcome, PricedOutcome } from '../../routing/completion-outcome.js';
import { unitsToDecimal } from '../../shared/decimal.js';
import type { ChatCompletionRequest, Usage } from '../../shared/openai-types.js';

/** Metering's pricing of a finished answer (frozen on the outcome, so the charge is the same figure). */
export interface AnswerPricer {
  priceAnswer(outcome: CompletionOutcome, request: ChatCompletionRequest): PricedOutcome;
}

/** The cost fields added to an answer's usage, as OpenRouter sends them: USD numbers. */
interface UsageCost {
  /** The amount charged, in USD (the account currency). */
  cost: number;
  cost_details: {
    prompt_cost: number;
    cache_read_cost: number;
    cache_write_cost: number;
    completion_cost: number;
    request_cost: number;
  };
}

/**
 * Whether the client asked for the cost: `usage: {include: true}` in the body (OpenRouter's
 * usage accounting), or the gateway is set to always include it (server.include_cost).
 */
export function costAsked(body: unknown, always: boolean): boolean {
  if (always) return true;
  if (!body || typeof body !== 'object') return false;
  const usage = (body as { usage?: unknown }).usage;
  return !!usage && typeof usage === 'object' && (usage as { include?: unknown }).include === true;
}

/** Nano-USD → a JSON number of USD (exact decimal digits; the integer stays the source of truth). */
function usd(nanos: number): number {
  return Number(unitsToDecimal(nanos, 9));
}

function usageCost(priced: PricedOutcome): UsageCost {
  return {
    cost: usd(priced.costNanos),
    cost_details: {
      prompt_cost: usd(priced.parts.promptNanos),
      cache_read_cost: usd(priced.parts.cacheReadNanos),
      cache_write_cost: usd(priced.parts.cacheWriteNanos),
      completion_cost: usd(priced.parts.completionNanos),
      request_cost: usd(priced.parts.requestNanos),
    },
  };
}

/**
 * The chat usage of an answer with its cost: the provider's usage plus `cost` and `cost_details`;
 * when the provider reported none, the tokens that were charged (the gateway's estimate).
 */
export function usageWithCost(usage: Usage | null, priced: PricedOutcome): Usage {
  const base: Usage = usage ?? {
    prompt_tokens: priced.promptTokens,
    completion_tokens: priced.completionTokens,
    total_tokens: priced.promptTokens + priced.completionTokens,
  };
  return { ...base, ...usageCost(priced) };
}

/** Copies the cost fields of a chat usage (when present) onto another API's usage object. */
export function copyCost<T extends object>(target: T, usage: Usage | null | undefined): T {
  if (!usage || typeof usage.cost !== 'number') return target;
  return { ...target, cost: usage.cost, cost_details: usage.cost_details };
}
