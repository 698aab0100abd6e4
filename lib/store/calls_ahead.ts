/**
 * `calls.jsonl` written while a run is under way, so that the log export left for the run's end has the outputs,
 * scores and events to write, not the calls (at 33,735 one-call samples, 35 of the log's 55 MB).
 *
 * The log lists calls by time stored, then key. A run stores its calls in time order (each is stored as it is
 * timed), so they are read in the order they were stored, a step at a time, and the calls of each time are
 * written once a call of a later time has been read (calls of one millisecond are sorted by key first). A call
 * stored out of time order (a clock set back) breaks that: the file is then dropped and the export writes the
 * calls from the store's sorted query, as it always did. The file is also checked for holding every stored call
 * when it is finished. Until then it lies beside the store under a name of its own ({@linkcode partialCalls});
 * a run killed outright leaves it there until the run directory's next export.
 * @module
 */
import { compareUtf8 } from "./held_view.ts";
import { JsonLinesFile } from "./jsonl_file.ts";
import { removeQuietly } from "../core/fs.ts";
import type { RunStore } from "./run_store.ts";

/** Path of the calls file while it is written, beside the store at `storePath` (its log may not exist yet). */
export function partialCalls(storePath: string): string {
  return `${storePath}-calls.jsonl.partial`;
}

/** Calls read from the store at once. */
const READ_ROWS = 2048;

/** The calls of one storage time not written yet: a later call may still share the time. */
interface TimeGroup {
  at: string;
  calls: { key: string; json: string }[];
}

/** The calls of a run's store written to the log as the run goes (see the module's documentation). */
export class CallsAhead {
  /** Path of the file being written. */
  readonly path: string;
  readonly #store: RunStore;
  readonly #file: JsonLinesFile;
  /** Number of the last call read (in storage order). */
  #last = 0;
  /** Calls written to the file. */
  #written = 0;
  /** The calls of the latest time read. */
  #group: TimeGroup | undefined;
  /** Why the file cannot be the log's, once it cannot. */
  #broken: string | undefined;

  private constructor(store: RunStore, path: string, file: JsonLinesFile) {
    this.#store = store;
    this.path = path;
    this.#file = file;
  }

  /** Starts the calls file of `store` ({@linkcode partialCalls}; one left by a killed run is begun afresh). */
  static async start(store: RunStore): Promise<CallsAhead> {
    const path = partialCalls(store.path);
    return new CallsAhead(store, path, await JsonLinesFile.create(path));
  }

  /** Why the file was given up, if it was (a call stored out of time order, or calls missing at the end). */
  get broken(): string | undefined {
    return this.#broken;
  }

  /** Reads the calls stored since the last step and writes those that no call stored later can precede. */
  async step(): Promise<void> {
    while (this.#broken === undefined) {
      const calls = this.#store.callsStoredAfter(this.#last, READ_ROWS);
      for (const call of calls) {
        this.#last = call.number;
        const group = this.#group;
        if (group && call.createdAt === group.at) {
          group.calls.push(call);
        } else if (!group || compareUtf8(call.createdAt, group.at) > 0) {
          if (group) await this.#writeGroup(group);
          this.#group = { at: call.createdAt, calls: [call] };
        } else {
          this.#broken = `call ${call.key} was stored at ${call.createdAt}, after a call of ${group.at}`;
          return;
        }
      }
      if (calls.length < READ_ROWS) break;
    }
    if (this.#broken === undefined) await this.#file.flush();
  }

  /**
   * Reads the calls stored since the last step, writes the rest, and returns the finished file's path when it
   * holds every stored call in the log's order; otherwise removes it and returns `undefined`. A call stored
   * meanwhile makes the count differ (the file is then dropped), or comes after the count (the export's caller
   * sees the store written to since, and exports again).
   */
  async finish(): Promise<string | undefined> {
    await this.step();
    if (this.#broken === undefined && this.#group) await this.#writeGroup(this.#group);
    this.#group = undefined;
    if (this.#broken === undefined) {
      await this.#file.flush();
      const stored = this.#store.callCount();
      if (this.#written !== stored) this.#broken = `${this.#written} of ${stored} calls written`;
    }
    if (this.#broken === undefined) {
      this.#file.close();
      return this.path;
    }
    this.discard();
    return undefined;
  }

  /** Gives the file up: closes and removes it (a run that ends without its export, or a failed step). */
  discard(): void {
    this.#broken ??= "given up";
    this.#file.close();
    removeQuietly(this.path);
  }

  /** Writes the calls of one time, by key (the log's order within a time). */
  async #writeGroup(group: TimeGroup): Promise<void> {
    const calls = group.calls.length > 1
      ? group.calls.sort((a, b) => compareUtf8(a.key, b.key))
      : group.calls;
    for (const call of calls) await this.#file.append(call.json);
    this.#written += calls.length;
  }
}
