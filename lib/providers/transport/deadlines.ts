/**
 * The timeouts of requests that share one duration, kept by a single timer. Requests that start later end
 * later, so the pending deadlines are in the order they were started: one timer, set for the earliest, serves
 * them all, and a request that ends before its deadline only leaves the queue. A run's thousands of requests
 * then set a timer now and then rather than one each (setting and clearing one cost ~4 µs a request).
 * @module
 */

/** One pending deadline of a {@linkcode DeadlineQueue}. */
export interface Deadline {
  /** When it expires, in `performance.now()` milliseconds. */
  readonly at: number;
  /** What runs when it expires. */
  readonly onExpire: () => void;
}

/** Deadlines `timeoutMs` after each start, expired in order by one timer (no timer while none is pending). */
export class DeadlineQueue {
  readonly #timeoutMs: number;
  /** Pending deadlines, earliest first (a Set keeps insertion order, and deletes in constant time). */
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `timeoutMs`: each deadline's distance from its start (at most 2^31 - 1, as `setTimeout` takes it). */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** How many deadlines are pending. */
  get size(): number {
    return this.#pending.size;
  }

  /** Starts a deadline: `onExpire` runs once `timeoutMs` have passed, unless {@linkcode end} is called first. */
  start(onExpire: () => void): Deadline {
    const deadline = { at: performance.now() + this.#timeoutMs, onExpire };
    this.#pending.add(deadline);
    if (this.#timer === undefined) this.#arm(deadline.at);
    return deadline;
  }

  /** Ends a deadline before it expires (nothing happens for one that has expired or ended). */
  end(deadline: Deadline): void {
    this.#pending.delete(deadline);
    if (this.#pending.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Sets the timer for a deadline at `at`. */
  #arm(at: number): void {
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - performance.now()));
  }

  /** Expires every deadline that has passed, in order, and sets the timer for the next one. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const deadline of this.#pending) {
      if (deadline.at > now) {
        // Set already when an expiry started a deadline of its own.
        if (this.#timer === undefined) this.#arm(deadline.at);
        return;
      }
      this.#pending.delete(deadline);
      deadline.onExpire();
    }
  }
}
