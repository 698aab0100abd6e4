/**
 * Progress output: a bar with rate, ETA, tokens and cost on a terminal; otherwise (CI logs) one plain line per
 * interval, also while nothing finishes. It also shows what the run is waiting for (retries after 5xx and
 * timeouts, a wait of a second or more for a rate limit, a 429's pause or a benched endpoint, batches), so a run
 * never looks stuck.
 * @module
 */

/** Options of {@linkcode Progress}. */
export interface ProgressOptions {
  /** Where to write (default: standard error). */
  write?: (text: string) => void;
  /** Draw a bar that redraws in place (default: whether standard error is a terminal). */
  tty?: boolean;
  /** Least time between two plain lines, in milliseconds (default 5000). */
  intervalMs?: number;
  /** `false` silences all output (default `true`). */
  enabled?: boolean;
}

/** Formats seconds as `1h02m`, `3m05s` or `12s`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${s}s`;
}

/** Formats a count as `950`, `12.3k` or `4.56M`. */
export function formatCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

/** Counts finished units of work and reports rate, ETA, failures and the latest wait. */
export class Progress {
  #done = 0;
  #failed = 0;
  readonly #total: number;
  #note = "";
  /** When the note stops being shown (`performance.now()`; `Infinity`: until the next note). */
  #noteUntil = Infinity;
  #spent = "";
  #lastLine = 0;
  readonly #start = performance.now();
  readonly #write: (text: string) => void;
  readonly #tty: boolean;
  readonly #intervalMs: number;
  readonly #enabled: boolean;
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  /** Starts counting `total` units labelled `label`. */
  constructor(readonly label: string, total: number, options: ProgressOptions = {}) {
    this.#total = total;
    const encoder = new TextEncoder();
    this.#write = options.write ?? ((text) => Deno.stderr.writeSync(encoder.encode(text)));
    this.#tty = options.tty ?? Deno.stderr.isTerminal();
    this.#intervalMs = options.intervalMs ?? 5000;
    this.#enabled = options.enabled ?? true;
    if (this.#enabled && !this.#tty && this.#intervalMs > 0) {
      // A line per interval even while a long wait finishes nothing; the timer never keeps the process alive.
      const timer = setInterval(() => this.#render(false), this.#intervalMs);
      Deno.unrefTimer(Number(timer));
      this.#heartbeat = timer;
    }
  }

  /** Units finished so far (including failed ones). */
  get done(): number {
    return this.#done;
  }

  /** Marks `n` units finished; `failed` marks them as failed. */
  tick(n = 1, failed = false): void {
    this.#done += n;
    if (failed) this.#failed += n;
    this.#render(false);
  }

  /** Shows what the run has spent so far: tokens, and cost (`null` when a model has no price). */
  spent(tokens: number, cost: number | null, currency: string): void {
    // Nothing sent yet (or offline stand-ins only): no "0 tokens, 0.00 USD" that reads like a measured zero.
    if (tokens === 0) return;
    const money = cost === null ? "" : `, ${cost < 100 ? cost.toFixed(2) : cost.toFixed(0)} ${currency}`;
    this.#spent = `, ${formatCount(tokens)} tokens${money}`;
  }

  /**
   * Shows a transient note, e.g. `retry 2/7 in 3.1s after HTTP 429`: until the next note, or for `forMs`
   * milliseconds when given (a wait's note no longer shows once the wait is over).
   */
  note(text: string, forMs?: number): void {
    this.#note = text;
    this.#noteUntil = forMs === undefined ? Infinity : performance.now() + forMs;
    this.#render(false);
  }

  /** Prints the final line. */
  finish(): void {
    clearInterval(this.#heartbeat);
    this.#note = "";
    this.#render(true);
    if (this.#tty && this.#enabled) this.#write("\n");
  }

  /** Returns the current status line (without bar). */
  status(): string {
    const elapsed = (performance.now() - this.#start) / 1000;
    const rate = this.#done / Math.max(elapsed, 1e-3);
    const eta = rate > 0 ? (this.#total - this.#done) / rate : Infinity;
    const failed = this.#failed ? `, ${this.#failed} failed` : "";
    const note = this.#note && performance.now() <= this.#noteUntil ? ` | ${this.#note}` : "";
    return `${this.label}: ${this.#done}/${this.#total}${failed}, ${rate.toFixed(1)}/s, elapsed ${
      formatDuration(elapsed)
    }, ETA ${formatDuration(eta)}${this.#spent}${note}`;
  }

  #render(force: boolean): void {
    if (!this.#enabled) return;
    const now = performance.now();
    if (this.#tty) {
      if (!force && now - this.#lastLine < 100) return;
      this.#lastLine = now;
      const width = 24;
      const filled = this.#total ? Math.round((this.#done / this.#total) * width) : width;
      const bar = "█".repeat(filled) + "░".repeat(Math.max(0, width - filled));
      this.#write(`\r\x1b[2K[${bar}] ${this.status()}`);
      return;
    }
    if (!force && now - this.#lastLine < this.#intervalMs) return;
    this.#lastLine = now;
    this.#write(`${this.status()}\n`);
  }
}
