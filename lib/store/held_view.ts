/**
 * A condition's output statuses and scores held in memory as a run writes them, so that the run's aggregation
 * reads what it wrote without reading it back from SQLite (at 33,735 samples the read-back took ~0.3 s of the
 * run's tail), and counts how its answers ended without joining them to their calls in SQL. It holds exactly
 * what the store's queries would return: the scores as read back (rebuilt from the values the store binds), a
 * later write replacing an earlier one of the same key, and both maps in the order of the queries (SQLite's
 * BINARY collation: UTF-8 byte order).
 * @module
 */
import type { OutputOutcomeCounts, OutputStatus, StoredScore } from "../core/records.ts";

/** True when `text` holds a UTF-16 unit whose order differs between UTF-16 and UTF-8 (a surrogate or U+E000 on). */
const HIGH_UNITS = /[\uD800-\uFFFF]/;

/**
 * Compares two strings as SQLite's BINARY collation does (UTF-8 bytes): UTF-16 code units, except that a
 * surrogate (half of a character beyond U+FFFF, four bytes in UTF-8) sorts after U+E000–U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}

/** A UTF-16 code unit's place in UTF-8 byte order at the first unit where two strings differ. */
function utf8Rank(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2800 : unit;
}

/** Sorts `texts` in place in SQLite's BINARY order ({@linkcode compareUtf8}); plain UTF-16 order when they agree. */
export function sortUtf8(texts: string[]): string[] {
  return texts.some((t) => HIGH_UNITS.test(t)) ? texts.sort(compareUtf8) : texts.sort();
}

/**
 * The order of a sample's scores in the store's queries: scorer, judge (none first), run. Takes scores, or the
 * store's rows of them (whose judge is `""` for none).
 */
export function compareScores(
  a: Pick<StoredScore, "scorer" | "judge" | "run">,
  b: Pick<StoredScore, "scorer" | "judge" | "run">,
): number {
  return compareUtf8(a.scorer, b.scorer) || compareUtf8(a.judge ?? "", b.judge ?? "") || a.run - b.run;
}

/**
 * A score as held: its row as the store binds it (sample, condition, scorer, judge or `""`, run, ... in the
 * store's column order), read into a {@linkcode StoredScore} ahead of the view, or when the view is taken.
 */
export type HeldScoreRow = readonly unknown[];

/** The store's key of a score within its sample and condition: scorer, judge and run (row columns 2-4). */
function sameKey(a: HeldScoreRow, b: HeldScoreRow): boolean {
  return a[2] === b[2] && a[3] === b[3] && a[4] === b[4];
}

/** Whether the call behind an answer was truncated or refused, as `RunStore.outputOutcomeCounts` counts it. */
export interface CallEnd {
  /** Its finish reason was `length`. */
  truncated: boolean;
  /** It was refused (`isRefused` of lib/core/refusal.ts). */
  refused: boolean;
}

/** How one held answer ended, as `RunStore.outputOutcomeCounts` counts it: its call's end, and its emptiness. */
interface AnswerEnd extends CallEnd {
  /** Not refused, and empty once trimmed. */
  empty: boolean;
}

/** An answer that is none of truncated, refused or empty (and every answer error). */
const PLAIN_END: AnswerEnd = { truncated: false, refused: false, empty: false };

/** What a sample's held score rows are replaced with once {@linkcode HeldView.view} has read them. */
const TAKEN: HeldScoreRow[] = [];

/** A sample's held scores once {@linkcode HeldView.readAhead} has read them: the scores in the rows' order. */
class ReadScores {
  constructor(readonly scores: StoredScore[]) {}
}

/** Whether two read scores of one sample have the store's key (scorer, judge, run): the one replaces the other. */
function sameScoreKey(a: StoredScore, b: StoredScore): boolean {
  return a.scorer === b.scorer && (a.judge ?? "") === (b.judge ?? "") && a.run === b.run;
}

/**
 * One condition's output statuses and scores, as written; read in the store's order by {@linkcode view}. Each
 * score row is read (by `read`, as the store reads its rows back) once: by {@linkcode readAhead}, which the
 * store calls from its timed commits while a run's calls are under way, or by the view for what is left.
 */
export class HeldView {
  readonly #read: (row: HeldScoreRow) => StoredScore;
  readonly #outputs = new Map<string, OutputStatus>();
  readonly #ends = new Map<string, AnswerEnd>();
  /** Each sample's score rows (most samples have one: a list, not a map by key), or its scores once read. */
  readonly #scores = new Map<string, HeldScoreRow[] | ReadScores>();
  /** Samples whose first score row came since the last {@linkcode readAhead}. */
  #unread: string[] = [];

  /** Holds nothing yet; `read` reads a held score row as the store reads its row back. */
  constructor(read: (row: HeldScoreRow) => StoredScore) {
    this.#read = read;
  }

  /**
   * Holds an output's status (replacing the sample's earlier one, as the store does) and how its answer ended:
   * `text` is the answer (`null`: it failed with `error`), `call` how the stored call behind it ended.
   */
  putOutput(sampleId: string, text: string | null, error: string | null, call: CallEnd): void {
    this.#outputs.set(sampleId, { sampleId, answered: text !== null, error });
    if (text === null) {
      this.#ends.set(sampleId, PLAIN_END);
      return;
    }
    // The store's SQL: the call's finish reason and refusal, the answer's own text for emptiness.
    const end = {
      truncated: call.truncated,
      refused: call.refused,
      empty: !call.refused && text.trim() === "",
    };
    this.#ends.set(sampleId, end.truncated || end.refused || end.empty ? end : PLAIN_END);
  }

  /** How the held answers ended, as `RunStore.outputOutcomeCounts` counts them from the store. */
  outcomeCounts(): OutputOutcomeCounts {
    const counts: OutputOutcomeCounts = {
      outputs: 0,
      truncated: 0,
      refused: 0,
      empty_answers: 0,
      errors: [],
    };
    for (const [id, output] of this.#outputs) {
      const end = this.#ends.get(id)!;
      counts.outputs++;
      if (end.truncated) counts.truncated++;
      if (end.refused) counts.refused++;
      if (end.empty) counts.empty_answers++;
      if (!output.answered) counts.errors.push(output.error ?? "");
    }
    return counts;
  }

  /**
   * Holds a score as the store binds it (replacing one of the same key). It is read as the store reads it back
   * later, by {@linkcode readAhead} in a turn of its own or by the view, so that an answer coming in does not
   * wait for it; only a later score of a sample read ahead already is read at once.
   */
  putScore(sampleId: string, row: HeldScoreRow): void {
    const own = this.#scores.get(sampleId);
    if (!own) {
      this.#scores.set(sampleId, [row]);
      this.#unread.push(sampleId);
      return;
    }
    if (own instanceof ReadScores) {
      // A sample read ahead: the row is read now, in the place of the score of the same key, if any.
      const score = this.#read(row);
      const at = own.scores.findIndex((held) => sameScoreKey(held, score));
      if (at < 0) own.scores.push(score);
      else own.scores[at] = score;
      return;
    }
    const at = own.findIndex((held) => sameKey(held, row));
    if (at < 0) own.push(row);
    else own[at] = row;
  }

  /**
   * Reads the score rows held since the last call, so that the view has only the latest to read (at 33,735
   * one-call samples reading them all at the end held the run's tail ~0.1 s). A sample's later rows are read
   * as they come.
   */
  readAhead(): void {
    const unread = this.#unread;
    this.#unread = [];
    for (const id of unread) {
      const own = this.#scores.get(id);
      if (own && !(own instanceof ReadScores)) this.#scores.set(id, new ReadScores(own.map(this.#read)));
    }
  }

  /**
   * The statuses by sample and the scores by sample (the rows not read ahead read now), each in the order of
   * the store's queries. Once: the held scores go as they are taken.
   */
  view(): { outputs: Map<string, OutputStatus>; scores: Map<string, StoredScore[]> } {
    const ids = sortUtf8([...this.#outputs.keys()]);
    const outputs = new Map<string, OutputStatus>();
    for (const id of ids) outputs.set(id, this.#outputs.get(id)!);
    // Most often every scored sample has an output: the scores' order is then the outputs', sorted once.
    const scoredIds = [...this.#scores.keys()];
    const scoreIds = scoredIds.every((id) => this.#outputs.has(id))
      ? ids.filter((id) => this.#scores.has(id))
      : sortUtf8(scoredIds);
    const scores = new Map<string, StoredScore[]>();
    for (const id of scoreIds) {
      const held = this.#scores.get(id)!;
      const own = held instanceof ReadScores ? held.scores : held.map(this.#read);
      // Each sample's rows go as they are read: the rows and the scores read from them are not all held at once
      // (replaced rather than deleted: deleting most of a large map's entries one by one rebuilds it each time
      // it shrinks, ~1 µs a sample).
      this.#scores.set(id, TAKEN);
      scores.set(id, own.length > 1 ? own.sort(compareScores) : own);
    }
    this.#scores.clear();
    return { outputs, scores };
  }
}
