/**
 * A clock that moves only when the test moves it, for code that takes a `clock` (monotonic milliseconds):
 * latencies, pauses and rate windows then depend on the test's steps, not on how busy the machine is.
 * @module
 */

/** Monotonic milliseconds that change only through {@linkcode ManualClock.advance} and `moveTo`. */
export class ManualClock {
  #now = 0;

  /** The time now; a bound function, so it can be passed as a `clock` option. */
  readonly now = (): number => this.#now;

  /** Moves the clock `ms` (≥ 0) forward. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`a clock only moves forward, got ${ms} ms`);
    this.#now += ms;
  }

  /** Moves the clock to `time` if that is later (a monotonic clock never goes back). */
  moveTo(time: number): void {
    this.#now = Math.max(this.#now, time);
  }
}
