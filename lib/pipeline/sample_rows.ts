/**
 * The rows of a condition's `samples.jsonl`, one per stored sample in the store's sample order: its fields, its
 * input as asked, its answer (or error) and its scores. Built from the store once a run is over
 * ({@linkcode eachSampleRowJson}), or while the run goes, from what it writes ({@linkcode SampleRowsAhead}):
 * both build each row by {@linkcode sampleRowJson}, so the two files are the same bytes.
 * @module
 */
import type { Sample } from "../core/sample.ts";
import type { StoredOutput, StoredScore } from "../core/records.ts";
import { compareScores } from "../store/held_view.ts";
import { type RunStore, scoreRowJson } from "../store/run_store.ts";
import { type FileMark, notePath, writeUnlessNoted } from "../store/file_note.ts";
import { writeJsonLines } from "../store/export.ts";
import { digestHex } from "../core/hash.ts";
import { JsonLinesFile } from "../store/jsonl_file.ts";
import { removeQuietly } from "../core/fs.ts";

/**
 * Format of a `samples.jsonl` row ({@linkcode sampleRowJson}, and `scoreRowJson` of run_store.ts for its
 * scores): a file noted in another format is written again, so a change to either must change this number
 * (tests/sample_rows_note_test.ts pins a row of each format).
 */
export const SAMPLE_ROWS_FORMAT = 1;

/** Path of the note beside the `samples.jsonl` in `dir` (lib/store/file_note.ts) saying what its rows are of. */
export function sampleRowsNotePath(dir: string): string {
  return notePath(`${dir}/samples.jsonl`);
}

/** Samples whose row heads {@linkcode rowHeadsDigest} hashes at once, before it lets other work run. */
const DIGEST_CHUNK = 1024;

/**
 * The SHA-256 (hex) of what the heads of a condition's rows are built from, besides the store's outputs and
 * scores: for each of `stored` (the store's samples, in its order) its id, its fields and the input the row
 * shows (as `asked` asked it, else its own), as {@linkcode eachSampleRowJson} takes them. Each chunk of
 * {@linkcode DIGEST_CHUNK} samples is hashed as JSON by Web Crypto off the main thread, then the chunks' digests
 * in order; the next chunk is prepared after the last is hashed, so a run that starts this with its calls finds
 * it done at its end (at 33,735 samples, hashed at the end, it held the tail ~50 ms, and ~35 ms of collection
 * after).
 */
export async function rowHeadsDigest(
  stored: Iterable<Sample>,
  asked: readonly Sample[] | undefined,
): Promise<string> {
  const inputs = new Map(asked?.map((s) => [s.id, s.input]));
  const encoder = new TextEncoder();
  const chunks: string[] = [];
  let heads: unknown[] = [];
  let count = 0;
  const hashChunk = async () => {
    chunks.push(await digestHex(encoder.encode(JSON.stringify(heads))));
    heads = [];
  };
  for (const sample of stored) {
    heads.push([sample.id, sample.fields, inputs.get(sample.id) ?? sample.input]);
    count++;
    if (heads.length === DIGEST_CHUNK) await hashChunk();
  }
  if (heads.length) await hashChunk();
  return await digestHex(encoder.encode(`${count}:${asked ? asked.length : "-"}:${chunks.join(",")}`));
}

/**
 * What a condition's `samples.jsonl` is derived from, as its note records it: the row format, the condition,
 * the store's `rowsMark()` (its name, its count of rows of samples, outputs and scores written, replaced or
 * deleted, and the generation its last change drew) and `heads`, the {@linkcode rowHeadsDigest} of the samples'
 * ids, fields and inputs as the rows show them (the inputs as asked are not in the store; `heads` is asked for
 * only when the store has a mark). `undefined` when the store keeps no count (read-only, of an earlier
 * version): such a file is always written.
 */
async function sampleRowsMark(
  store: RunStore,
  condition: string,
  heads: () => Promise<string>,
): Promise<FileMark | undefined> {
  const rows = store.rowsMark();
  if (!rows) return undefined;
  return { format: SAMPLE_ROWS_FORMAT, condition, ...rows, heads: await heads() };
}

/**
 * Writes the `samples.jsonl` of `condition` into `dir`, and its note: the rows written ahead as it was evaluated
 * (`ahead`, {@linkcode SampleRowsAhead}) are moved into place; else the rows are read from the store
 * ({@linkcode eachSampleRowJson}), unless the file there is noted as derived from the store's rows as they are
 * now and from the same row heads (`digest`: their {@linkcode rowHeadsDigest}, when begun already), as after a
 * rerun that stored nothing new: that file is kept. Returns how the file came to be.
 */
export async function writeSampleRows(
  dir: string,
  store: RunStore,
  condition: string,
  asked: readonly Sample[] | undefined,
  options: { ahead?: string; digest?: Promise<string> } = {},
): Promise<"moved" | "written" | "kept"> {
  const { ahead } = options;
  const path = `${dir}/samples.jsonl`;
  const heads = () => options.digest ?? rowHeadsDigest(store.eachSample(), asked);
  const mark = await sampleRowsMark(store, condition, heads);
  let moved = false;
  // Rows written ahead are always taken.
  const kept = await writeUnlessNoted(path, mark, async () => {
    // On another file system, say, the rows written ahead cannot be moved: they are read from the store instead.
    moved = ahead !== undefined &&
      await Deno.rename(ahead, path).then(() => true, () => (removeQuietly(ahead), false));
    if (!moved) await writeJsonLines(path, eachSampleRowJson(store, condition, asked));
  }, ahead === undefined);
  return kept ? "kept" : moved ? "moved" : "written";
}

/** Samples whose outputs and scores {@linkcode eachSampleRowJson} reads at once. */
const SAMPLE_ROWS_PAGE = 1024;

/** Samples after the next row's that {@linkcode SampleRowsAhead} searches for one done ahead of its turn. */
const SCAN_AHEAD = 1024;

/** What a row shows of a sample's stored output: its answer, its error and the solver's detail (as stored). */
export type RowOutput = Pick<StoredOutput, "text" | "error" | "detail">;

/**
 * A row of `samples.jsonl` as JSON text: the sample's fields, its input as asked, its answer (or error, or
 * `not run` without an output) and its scores (each as {@linkcode scoreRowJson} gives it, in the store's order).
 * A field named `scores` is left out: the row's scores take its place, as they always did.
 */
export function sampleRowJson(
  sample: Sample,
  condition: string,
  input: string,
  output: RowOutput | undefined,
  scores: readonly string[],
): string {
  const head: Record<string, unknown> = {
    id: sample.id,
    condition,
    ...sample.fields,
    input,
    answer: output?.text ?? null,
    answer_error: output?.error ?? (output ? null : "not run"),
    ...(output?.detail ? { solver: output.detail } : {}),
  };
  if ("scores" in head) delete head.scores;
  const text = JSON.stringify(head);
  return `${text.slice(0, -1)},"scores":[${scores.join(",")}]}`;
}

/**
 * Yields the rows of `samples.jsonl` read from the store, one per sample in sample order (`asked`: the samples
 * as the condition asked them, whose inputs the rows show). The outputs and scores are read for a page of
 * samples at a time, so that a run's answers are never all in memory, and the scores' stored JSON is spliced
 * in, not parsed.
 */
export function* eachSampleRowJson(
  store: RunStore,
  condition: string,
  asked?: readonly Sample[],
): Generator<string> {
  const inputs = new Map(asked?.map((s) => [s.id, s.input]));
  for (const page of pagesOf(store.eachSample(), SAMPLE_ROWS_PAGE)) {
    const ids = page.map((s) => s.id);
    const outputs = new Map(store.outputsOf(condition, ids).map((o) => [o.sampleId, o]));
    const scores = Map.groupBy(store.sampleScoresOf(condition, ids), (s) => s.sampleId);
    for (const sample of page) {
      const own = scores.get(sample.id)?.map((s) => s.json) ?? [];
      yield sampleRowJson(
        sample,
        condition,
        inputs.get(sample.id) ?? sample.input,
        outputs.get(sample.id),
        own,
      );
    }
  }
}

/** Yields `items` in arrays of `size` (the last one shorter). */
function* pagesOf<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let page: T[] = [];
  for (const item of items) {
    page.push(item);
    if (page.length === size) {
      yield page;
      page = [];
    }
  }
  if (page.length) yield page;
}

/** The store's key of a score within its sample: scorer, judge and run. */
function scoreKey(score: StoredScore): string {
  return JSON.stringify([score.scorer, score.judge ?? "", score.run]);
}

/**
 * A condition's `samples.jsonl` written while its samples are evaluated, into a file of its own (`path`), so
 * that the run's tail has no rows to read back and write (at 33,735 samples that took ~0.4 s after the last
 * answer). The evaluation tells it each sample's final output and scores as it stores them
 * ({@linkcode done}); a row is written once every row before it is, so the file keeps the store's sample order.
 * It holds the rows that came in ahead of their turn, never the run's answers.
 *
 * The file is the condition's `samples.jsonl` only when every row was written and the store held the condition
 * throughout (nothing it stored reads back otherwise than it was given: see `RunStore.holdView`); else
 * {@linkcode finish} says so, and the rows are read from the store as before.
 */
export class SampleRowsAhead {
  /** Where the rows go. */
  readonly path: string;
  readonly #file: JsonLinesFile;
  readonly #condition: string;
  /** The store's samples, in its order. */
  readonly #order: readonly Sample[];
  /**
   * The inputs as asked of the samples the condition evaluates and that are not done yet (the samples it does not
   * evaluate get a `not run` row; a second report of one done spoils the file).
   */
  readonly #asked: Map<string, string>;
  /** Rows of samples done ahead of their turn, by id. */
  readonly #waiting = new Map<string, string>();
  /** The store's samples by id, once one is done further ahead than {@linkcode SCAN_AHEAD} looks. */
  #byId: Map<string, Sample> | undefined;
  /** Index in `#order` of the next row to write. */
  #next = 0;
  #spoiled = false;

  private constructor(
    path: string,
    file: JsonLinesFile,
    condition: string,
    order: readonly Sample[],
    asked: readonly Sample[],
  ) {
    this.path = path;
    this.#file = file;
    this.#condition = condition;
    this.#order = order;
    this.#asked = new Map(asked.map((s) => [s.id, s.input]));
    this.#spoiled = this.#asked.size !== asked.length;
  }

  /**
   * Starts the rows of `condition` at `path` (created, or emptied): `order` is the store's samples in its order,
   * `asked` the samples the condition evaluates, as it asks them.
   */
  static start(
    path: string,
    condition: string,
    order: readonly Sample[],
    asked: readonly Sample[],
  ): SampleRowsAhead {
    return new SampleRowsAhead(path, JsonLinesFile.createSync(path), condition, order, asked);
  }

  /**
   * Notes that sample `id` is done: `output` is what the store was given for it (`undefined`: nothing, it was
   * not asked), `scores` every score stored for it, in the order they were stored (a later one of the same key
   * replaces an earlier one, as in the store).
   */
  done(id: string, output: RowOutput | undefined, scores: readonly StoredScore[]): void {
    if (this.#spoiled) return;
    const sample = this.#order[this.#next];
    const input = this.#asked.get(id);
    const own = sample?.id === id ? sample : input === undefined ? undefined : this.#orderSample(id);
    if (input === undefined || !own) {
      this.#spoiled = true;
      return;
    }
    this.#asked.delete(id);
    const latest = new Map(scores.map((s) => [scoreKey(s), s]));
    const scoreRows = [...latest.values()].sort(compareScores).map(scoreRowJson);
    // The store keeps the solver's detail as JSON text, and the rows show it as read back.
    const stored = output && {
      text: output.text,
      error: output.error,
      detail: output.detail ? JSON.parse(JSON.stringify(output.detail)) : null,
    };
    const row = sampleRowJson(own, this.#condition, input, stored, scoreRows);
    if (own !== sample) {
      this.#waiting.set(id, row);
      return;
    }
    this.#file.appendSync(row);
    this.#next++;
    this.#drain();
  }

  /**
   * The store's sample of `id`, done ahead of its turn: looked for among the next {@linkcode SCAN_AHEAD} samples
   * (a run's window keeps it there), else in an index built the first time one is not (an index of 100,000
   * samples would hold megabytes for the whole run).
   */
  #orderSample(id: string): Sample | undefined {
    const end = Math.min(this.#order.length, this.#next + SCAN_AHEAD);
    for (let i = this.#next; i < end; i++) if (this.#order[i].id === id) return this.#order[i];
    this.#byId ??= new Map(this.#order.map((s) => [s.id, s]));
    return this.#byId.get(id);
  }

  /** Writes the rows now due: those done ahead of their turn and those of samples the condition does not ask. */
  #drain(): void {
    for (; this.#next < this.#order.length; this.#next++) {
      const sample = this.#order[this.#next];
      const waiting = this.#waiting.get(sample.id);
      if (waiting !== undefined) {
        this.#waiting.delete(sample.id);
        this.#file.appendSync(waiting);
      } else if (!this.#asked.has(sample.id)) {
        this.#file.appendSync(sampleRowJson(sample, this.#condition, sample.input, undefined, []));
      } else {
        return;
      }
    }
  }

  /**
   * Ends the rows: returns `true` when the file holds every row (`held`: the store held the condition until its
   * last write); else removes it and returns `false`.
   */
  finish(held: boolean): boolean {
    if (!this.#spoiled) this.#drain();
    // Every row is written once the next one would be past the last sample (none can still be waiting).
    const complete = held && !this.#spoiled && this.#next === this.#order.length;
    try {
      if (complete) this.#file.flushSync();
    } finally {
      this.#file.close();
    }
    if (!complete) this.discard();
    return complete;
  }

  /** Removes the file (a failed run, or rows given up); what is done later is not written. */
  discard(): void {
    this.#spoiled = true;
    this.#file.close();
    removeQuietly(this.path);
  }
}
