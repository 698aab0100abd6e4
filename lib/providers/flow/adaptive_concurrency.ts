/**
 * Adaptive concurrency of one endpoint: an AIMD window. It starts at the configured concurrency, which is also
 * its ceiling (so a healthy server is never held below it), halves on overload (429, 5xx, timeouts, or latency
 * well above the endpoint's observed floor) at most once per round trip, and grows back by one request per
 * success, as request concurrency limiters do: after a transient overload it is back at the ceiling within a
 * ceiling's worth of successes, which matters when a rate-limited API needs many requests in flight.
 * @module
 */

/** Settings of an {@linkcode AimdWindow}. */
export interface AimdOptions {
  /** The configured concurrency: where the window starts and the most it grows to. */
  ceiling: number;
  /** The least it shrinks to (default 1). */
  floor?: number;
  /** Smoothed latency above this many times the floor is overload (default 3). */
  latencyFactor?: number;
  /** Weight of a new latency in the smoothed latency (default 0.1). */
  smoothing?: number;
  /** Successes seen before latency can shrink the window (default 10). */
  warmup?: number;
  /**
   * Share of the gap to the smoothed latency by which the floor rises per success (default 0.01), so that a
   * lasting change in the work (longer prompts or answers) stops counting as overload after a while.
   */
  floorDrift?: number;
}

/** What a result did to the window. */
export type WindowChange = "grew" | "shrank" | "held";

/** An additive-increase, multiplicative-decrease concurrency window. */
export class AimdWindow {
  /** The most requests in flight the window allows, never above the configured concurrency. */
  readonly ceiling: number;
  readonly #floor: number;
  readonly #latencyFactor: number;
  readonly #smoothing: number;
  readonly #warmup: number;
  readonly #floorDrift: number;
  #value: number;
  #lastDecreaseAt = -Infinity;
  #smoothedMs = 0;
  #latencyFloorMs = Infinity;
  #samples = 0;

  /** Creates a window at its ceiling. */
  constructor(options: AimdOptions) {
    if (!Number.isInteger(options.ceiling) || options.ceiling < 1) {
      throw new RangeError(`concurrency must be an integer ≥ 1, got ${options.ceiling}`);
    }
    this.ceiling = options.ceiling;
    this.#floor = Math.min(options.floor ?? 1, this.ceiling);
    this.#latencyFactor = options.latencyFactor ?? 3;
    this.#smoothing = options.smoothing ?? 0.1;
    this.#warmup = options.warmup ?? 10;
    this.#floorDrift = options.floorDrift ?? 0.01;
    this.#value = this.ceiling;
  }

  /** Requests allowed in flight now: a whole number between the floor and the ceiling. */
  get limit(): number {
    return Math.max(this.#floor, Math.floor(this.#value));
  }

  /** Smoothed latency of successes, in milliseconds (0 before the first). */
  get smoothedLatencyMs(): number {
    return this.#smoothedMs;
  }

  /** The lowest smoothed latency seen (slowly following lasting changes), in ms; `Infinity` before warm-up. */
  get latencyFloorMs(): number {
    return this.#latencyFloorMs;
  }

  /**
   * Takes a success that was sent at `startedAt` and took `latencyMs` (monotonic ms, `now` its end): shrinks the
   * window when the smoothed latency is well above the floor, else grows it by one.
   */
  onSuccess(latencyMs: number, startedAt: number, now: number): WindowChange {
    this.#samples++;
    this.#smoothedMs = this.#samples === 1
      ? latencyMs
      : this.#smoothedMs + this.#smoothing * (latencyMs - this.#smoothedMs);
    if (this.#samples < this.#warmup) return this.#grow();
    this.#latencyFloorMs = this.#latencyFloorMs === Infinity ? this.#smoothedMs : Math.min(
      this.#smoothedMs,
      this.#latencyFloorMs + this.#floorDrift * (this.#smoothedMs - this.#latencyFloorMs),
    );
    if (this.#smoothedMs > this.#latencyFactor * this.#latencyFloorMs) {
      return this.onOverload(startedAt, now) ? "shrank" : "held";
    }
    return this.#grow();
  }

  /**
   * Takes an overload signal (429, 5xx, timeout) of a request sent at `startedAt`: halves the window unless it
   * already shrank after that request was sent (one decrease per round trip). Returns whether it shrank.
   */
  onOverload(startedAt: number, now: number): boolean {
    if (startedAt < this.#lastDecreaseAt) return false;
    this.#value = Math.max(this.#floor, this.#value / 2);
    this.#lastDecreaseAt = now;
    return true;
  }

  #grow(): WindowChange {
    if (this.#value >= this.ceiling) return "held";
    this.#value = Math.min(this.ceiling, this.#value + 1);
    return "grew";
  }
}
