/**
 * Requests-per-minute and tokens-per-minute caps set by the user (`--rpm`, `--tpm`): a sliding window that
 * never lets more than its limit be sent within any window-long span, with sends spread evenly over the window
 * (servers often enforce a per-minute limit per second, and arrivals jitter) rather than sent in bursts.
 * Waiting requests are delayed, never dropped.
 * @module
 */

/**
 * How much slower than `limit / window` sends are spread: enough that network jitter does not put two sends
 * one window apart into the same window at the server.
 */
export const PACING_MARGIN = 0.02;

/**
 * At most `limit` units (requests or estimated tokens) sent within any `windowMs`-long span, and after a send
 * of `cost` units the next no sooner than `cost` × `windowMs` × (1 + {@linkcode PACING_MARGIN}) / `limit`.
 */
export class SlidingWindowCap {
  /** Send times (monotonic ms) and costs of the sends still inside the window, oldest first, from `#head`. */
  #times: number[] = [];
  #costs: number[] = [];
  #head = 0;
  #sum = 0;
  /** Earliest time of the next send, spreading sends over the window. */
  #nextAt = -Infinity;
  readonly #msPerUnit: number;

  /** Creates a cap of `limit` (> 0) units per `windowMs` (default one minute). */
  constructor(readonly limit: number, readonly windowMs = 60_000) {
    if (!(limit > 0) || !(windowMs > 0)) {
      throw new RangeError(`a rate cap needs a positive limit and window, got ${limit} per ${windowMs} ms`);
    }
    this.#msPerUnit = windowMs * (1 + PACING_MARGIN) / limit;
  }

  /** Units sent within the window ending at `now`. */
  used(now: number): number {
    this.#evict(now);
    return this.#sum;
  }

  /**
   * Returns `now` if `cost` more units fit in the window ending at `now`, else the earliest time they will (a
   * cost above the limit never fits: `Infinity`).
   */
  readyAt(now: number, cost: number): number {
    if (cost > this.limit) return Infinity;
    this.#evict(now);
    const paced = Math.max(now, this.#nextAt);
    let excess = this.#sum + cost - this.limit;
    if (excess <= 0) return paced;
    for (let i = this.#head; i < this.#times.length; i++) {
      excess -= this.#costs[i];
      if (excess <= 0) return Math.max(paced, this.#times[i] + this.windowMs);
    }
    return Infinity;
  }

  /** Records `cost` units sent at `now`. */
  record(now: number, cost: number): void {
    this.#times.push(now);
    this.#costs.push(cost);
    this.#sum += cost;
    // A send made late (timers fire late) by up to half a gap keeps the schedule rather than shifting it.
    const onSchedule = now - this.#nextAt <= this.#msPerUnit / 2;
    this.#nextAt = (onSchedule ? this.#nextAt : now) + cost * this.#msPerUnit;
  }

  /**
   * Takes back `cost` units of the latest send made at or before `sentAt` (one the server refused, which did
   * not count against its limit).
   */
  refund(sentAt: number, cost: number): void {
    for (let i = this.#times.length - 1; i >= this.#head; i--) {
      if (this.#times[i] <= sentAt && this.#costs[i] === cost && cost > 0) {
        this.#costs[i] = 0;
        this.#sum -= cost;
        return;
      }
    }
  }

  #evict(now: number): void {
    while (this.#head < this.#times.length && this.#times[this.#head] + this.windowMs <= now) {
      this.#sum -= this.#costs[this.#head];
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#costs = this.#costs.slice(this.#head);
      this.#head = 0;
    }
  }
}
