/**
 * Health of one endpoint of a pool: after several failures in a row it is benched for a cooldown, then probed
 * with a single request; a failed probe benches it again for twice as long (up to a cap), a success restores it.
 * @module
 */

/** When an endpoint is benched and for how long. */
export interface HealthPolicy {
  /** Failures in a row (5xx, timeouts, broken connections) that bench an endpoint (default 3). */
  failuresToBench: number;
  /** First cooldown, in milliseconds (default 5 s); doubles with every failed probe. */
  cooldownMs: number;
  /** Longest cooldown, in milliseconds (default 5 min). */
  maxCooldownMs: number;
}

/** The policy used unless configured otherwise. */
export const DEFAULT_HEALTH_POLICY: HealthPolicy = {
  failuresToBench: 3,
  cooldownMs: 5000,
  maxCooldownMs: 300_000,
};

/** The health state of one endpoint. */
export class EndpointHealth {
  readonly #policy: HealthPolicy;
  #failuresInRow = 0;
  #benchedUntil = 0;
  #nextCooldownMs: number;
  #probing = false;
  #benchings = 0;

  /** Creates a healthy endpoint's state. */
  constructor(policy: Partial<HealthPolicy> = {}) {
    this.#policy = { ...DEFAULT_HEALTH_POLICY, ...policy };
    this.#nextCooldownMs = this.#policy.cooldownMs;
  }

  /** Monotonic time (ms) until which the endpoint takes no requests (0 when not benched). */
  get benchedUntil(): number {
    return this.#benchedUntil;
  }

  /** `true` after a cooldown until a request succeeds: only one request at a time is sent to it. */
  get probing(): boolean {
    return this.#probing;
  }

  /** How many times it has been benched. */
  get benchings(): number {
    return this.#benchings;
  }

  /** `true` while benched at `now`. */
  benched(now: number): boolean {
    return now < this.#benchedUntil;
  }

  /** Takes a success: the endpoint is healthy again and the cooldown back to its first length. */
  onSuccess(): void {
    this.#failuresInRow = 0;
    this.#probing = false;
    this.#nextCooldownMs = this.#policy.cooldownMs;
  }

  /**
   * Takes a failure at `now`; benches the endpoint after enough failures in a row, or after a failed probe,
   * unless `mayBench` is `false` (it is the last endpoint in service). Returns whether it was benched.
   */
  onFailure(now: number, mayBench: boolean): boolean {
    this.#failuresInRow++;
    if (!mayBench || this.benched(now)) return false;
    if (!this.#probing && this.#failuresInRow < this.#policy.failuresToBench) return false;
    this.#benchedUntil = now + this.#nextCooldownMs;
    this.#nextCooldownMs = Math.min(this.#policy.maxCooldownMs, this.#nextCooldownMs * 2);
    this.#probing = true;
    this.#benchings++;
    return true;
  }
}
