/**
 * A counting semaphore: at most `limit` tasks run at once, the rest wait in arrival order.
 * @module
 */

/** Limits how many async tasks run at the same time. */
export class Limiter {
  #active = 0;
  readonly #queue: (() => void)[] = [];

  /** Creates a limiter allowing `limit` (≥ 1) concurrent tasks. */
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`concurrency must be an integer ≥ 1, got ${limit}`);
    }
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Runs `task` once a slot is free and returns its result. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    // A released slot is handed straight to the next waiter, so `active` never exceeds `limit`.
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#queue.push(resolve));
    else this.#active++;
    try {
      return await task();
    } finally {
      const next = this.#queue.shift();
      if (next) next();
      else this.#active--;
    }
  }
}
