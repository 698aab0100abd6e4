/**
 * An allowance (requests or tokens) learned from a server's `x-ratelimit-remaining-*` and `x-ratelimit-reset-*`
 * reports. Each report says what is left now and when what the server has counted so far will have expired:
 * until then the report's remainder is available, from then on the whole limit, in both cases less what was
 * sent since. Earlier reports stay useful until their reset passes, so a window that frees in steps (a sliding
 * window) is used as soon as each step frees; a bucket refilled continuously is waited for a little longer
 * than needed, and its refill sent at once.
 * @module
 */
import type { RateLimitDimension } from "../transport/rate_limits.ts";

/** Reset assumed when a server reports an allowance in use but no reset time: a minute. */
const DEFAULT_RESET_MS = 60_000;

/**
 * A reported reset is taken as this much later (a share, and milliseconds), so that requests sent at the
 * reset do not reach the server before the ones it counted have left its window.
 */
const RESET_MARGIN = 0.02;
const RESET_SLACK_MS = 10;

/**
 * Sends made this recently before a report arrives may not have reached the server when it answered: they stay
 * charged against the report's remainder (default; less for servers answering faster).
 */
export const IN_TRANSIT_MS = 50;

/** What a report said would be free at its reset: the whole limit, less what was sent after `counted`. */
interface Reset {
  /** When (monotonic ms). */
  at: number;
  /** Units sent in total that the report had counted. */
  counted: number;
}

/** The allowance of one dimension as the server's reports describe it; unknown until the first report. */
export class LearnedBudget {
  #limit = 0;
  #remaining = 0;
  /** Units sent in total, and that the latest report had counted. */
  #sent = 0;
  #counted = 0;
  /** Resets of the reports still ahead or just passed: `at` and `counted` both increasing, from `#head`. */
  #resets: Reset[] = [];
  #head = 0;
  /** Recent sends: when, and the total sent before each (for what a report cannot have counted yet). */
  #recent: { at: number; before: number }[] = [];

  /** `true` once the server has reported this dimension. */
  get known(): boolean {
    return this.#limit > 0;
  }

  /** The last reported limit (0 while unknown). */
  get limit(): number {
    return this.#limit;
  }

  /**
   * Takes a report received at `now` (monotonic ms); sends made within `inTransitMs` before it may not have
   * been counted. Reports without `remaining` are ignored.
   */
  update(report: RateLimitDimension, now: number, inTransitMs = IN_TRANSIT_MS): void {
    if (report.remaining === undefined) return;
    const limit = Math.max(report.limit ?? this.#limit, report.remaining);
    if (limit <= 0) return;
    this.#limit = limit;
    this.#remaining = report.remaining;
    this.#counted = this.#sentBefore(now - inTransitMs);
    const resetMs = report.resetMs ?? (report.remaining < limit ? DEFAULT_RESET_MS : 0);
    const at = now + (resetMs > 0 ? resetMs * (1 + RESET_MARGIN) + RESET_SLACK_MS : 0);
    // A report whose reset comes no later and that counted more makes the earlier ones useless.
    while (this.#resets.length > this.#head && this.#resets[this.#resets.length - 1].at >= at) {
      this.#resets.pop();
    }
    this.#resets.push({ at, counted: this.#counted });
  }

  /**
   * Takes a refusal (429) whose report has just been taken: only that report stands. The earlier ones' resets
   * charge the refused sends, which the server did not count, and would hold back more than it does.
   */
  onRefused(): void {
    if (this.#resets.length - this.#head > 1) {
      this.#resets = this.#resets.slice(-1);
      this.#head = 0;
    }
  }

  /** Records `cost` units sent at `now`. */
  charge(cost: number, now: number): void {
    if (!this.known || cost <= 0) return;
    this.#recent.push({ at: now, before: this.#sent });
    this.#sent += cost;
    if (this.#recent.length > 64 && this.#recent[0].at < now - IN_TRANSIT_MS) {
      this.#recent = this.#recent.filter((send) => send.at >= now - IN_TRANSIT_MS);
    }
  }

  /** Units available at `now`: the best of the latest remainder and the limit freed by each passed reset. */
  available(now: number): number {
    if (!this.known) return Infinity;
    const current = this.#remaining - (this.#sent - this.#counted);
    const passed = this.#lastPassed(now);
    return passed ? Math.max(current, this.#limit - (this.#sent - passed.counted)) : current;
  }

  /**
   * Returns `now` if `cost` units (at most the limit) may be sent now, else the first reset that frees them;
   * `Infinity` when none does (more than the limit sent since the last report counted): only a new report can
   * tell, so wait for an answer.
   */
  readyAt(now: number, cost: number): number {
    if (!this.known || cost <= 0) return now;
    const needed = Math.min(cost, this.#limit);
    if (this.available(now) >= needed) return now;
    // The first reset whose report counted enough of what was sent: `counted` increases along the list.
    const enough = this.#sent - this.#limit + needed;
    let low = this.#head;
    let high = this.#resets.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.#resets[mid].counted >= enough) high = mid;
      else low = mid + 1;
    }
    return low < this.#resets.length ? Math.max(now, this.#resets[low].at) : Infinity;
  }

  /** Returns the latest reset passed by `now` (dropping the ones before it), if any. */
  #lastPassed(now: number): Reset | undefined {
    while (this.#head + 1 < this.#resets.length && this.#resets[this.#head + 1].at <= now) this.#head++;
    if (this.#head > 256 && this.#head * 2 > this.#resets.length) {
      this.#resets = this.#resets.slice(this.#head);
      this.#head = 0;
    }
    const first = this.#resets[this.#head];
    return first && first.at <= now ? first : undefined;
  }

  /** Units sent in total before `time`. */
  #sentBefore(time: number): number {
    let total = this.#sent;
    for (let i = this.#recent.length - 1; i >= 0 && this.#recent[i].at > time; i--) {
      total = this.#recent[i].before;
    }
    return total;
  }
}
