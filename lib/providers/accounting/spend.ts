/**
 * Token and cost accounting: what a run has spent (from its store, then live as calls are sent), the limits
 * `--max-cost` and `--max-tokens-total` put on it, and the accounting rows of a summary.
 * @module
 */
import type { StoredCall } from "../../core/records.ts";
import type { UsageRow } from "../../core/summary.ts";
import type { UsageTotal } from "../../store/run_store.ts";
import { costOf, priceOf, type PriceTable } from "./prices.ts";

/** Limits on what a run may spend in total (over all its sessions). */
export interface SpendLimits {
  /** Most cost, in the price table's currency. */
  maxCost?: number;
  /** Most prompt + completion tokens. */
  maxTokens?: number;
}

/** Returns `true` for models that call no API (offline stand-ins), which cost nothing. */
function free(model: string): boolean {
  return model.startsWith("offline:");
}

/** Returns the cost of `prompt`/`completion` tokens of `model`, `0` when free, `null` when unpriced. */
function costFor(
  prices: PriceTable,
  model: string,
  prompt: number,
  completion: number,
  batch: boolean,
): number | null {
  if (free(model)) return 0;
  const price = priceOf(prices, model);
  return price ? costOf(prices, price, { prompt, completion }, batch) : null;
}

/** Rounds a cost to a billionth of the currency unit (sums of float prices carry noise far below that). */
function roundCost(cost: number | null): number | null {
  return cost === null ? null : Math.round(cost * 1e9) / 1e9;
}

/** What a run has spent so far, checked against its limits. */
export class Budget {
  #tokens = 0;
  #cost = 0;
  readonly #unpriced = new Set<string>();

  /** Starts from nothing; {@linkcode addTotals} adds what the store already holds. */
  constructor(readonly prices: PriceTable, readonly limits: SpendLimits = {}) {}

  /** Tokens spent (prompt + completion, as reported). */
  get tokens(): number {
    return this.#tokens;
  }

  /** Cost spent on priced models, in the table's currency. */
  get cost(): number {
    return this.#cost;
  }

  /** Models met that have no price (their cost is not counted). */
  get unpriced(): string[] {
    return [...this.#unpriced];
  }

  /** Cost spent so far, or `null` once a model without a price has been met (the sum would understate it). */
  get knownCost(): number | null {
    return this.#unpriced.size ? null : this.#cost;
  }

  /** Adds the totals of calls already stored (a resumed run counts what it spent before). */
  addTotals(totals: readonly UsageTotal[]): void {
    for (const t of totals) this.#add(t.model, t.prompt, t.completion, t.batch);
  }

  /** Adds one call just sent. */
  addCall(call: StoredCall): void {
    if (!call.usage) return;
    this.#add(
      call.model,
      call.usage.prompt,
      call.usage.completion,
      call.endpoint?.startsWith("batch:") ?? false,
    );
  }

  #add(model: string, prompt: number, completion: number, batch: boolean): void {
    this.#tokens += prompt + completion;
    const cost = costFor(this.prices, model, prompt, completion, batch);
    if (cost === null) this.#unpriced.add(model);
    else this.#cost += cost;
  }

  /** Returns why the run must stop (a limit reached), or `undefined` while it may go on. */
  exceeded(): string | undefined {
    const { maxCost, maxTokens } = this.limits;
    if (maxTokens !== undefined && this.#tokens >= maxTokens) {
      return `token limit reached (${this.#tokens} of --max-tokens-total ${maxTokens})`;
    }
    if (maxCost !== undefined && this.#cost >= maxCost) {
      return `cost limit reached (${this.#cost.toFixed(4)} of --max-cost ${maxCost} ${this.prices.currency})`;
    }
    return undefined;
  }
}

/**
 * Returns the accounting rows of `condition` from the store's usage totals; calls of stores written before
 * calls recorded their condition count towards `baseline`. Tokens no call reported, and the cost of a row with
 * a call that reported no usage, are `null` (unknown), never 0.
 */
export function usageRows(
  totals: readonly UsageTotal[],
  prices: PriceTable,
  condition: string,
  baseline: string,
): UsageRow[] {
  return totals.filter((t) => (t.condition ?? baseline) === condition).map((t) => ({
    role: t.role,
    model: t.model,
    batch: t.batch,
    calls: t.calls,
    prompt_tokens: t.withoutUsage === t.calls ? null : t.prompt,
    completion_tokens: t.withoutUsage === t.calls ? null : t.completion,
    calls_without_usage: t.withoutUsage,
    cost: t.withoutUsage ? null : roundCost(costFor(prices, t.model, t.prompt, t.completion, t.batch)),
    currency: prices.currency,
  }));
}
