/**
 * Screening of response data before a calibration: the cases marginal maximum likelihood cannot estimate, found
 * and named before the EM starts instead of after minutes of cycles. Items with fewer than two responses, or
 * answered all right or all wrong, have no finite estimate (the likelihood rises without bound as b → ∓∞): they
 * are left out of the calibration, as mirt refuses items with one response category. Examinees with no response
 * to a calibrated item are left out too. Fewer than two examinees or items left is an error. Examinees who got
 * every calibrated item right (or wrong) stay in: under MML their ability is integrated over the N(0, 1)
 * population distribution, which bounds it, and they carry information about the items (LSAT7's 320 such
 * examinees of 1,000 are part of every published calibration of it); they are named, and their abilities are
 * prior-bound EAP (or MAP) estimates.
 * @module
 */
import { InputError } from "../core/errors.ts";
import type { Responses } from "./responses.ts";

/** Why an item is left out of the calibration. */
export type ItemExclusion = "fewer than 2 responses" | "all right" | "all wrong";

/** An item left out, with what it had. */
export interface ExcludedItem {
  /** Item id. */
  item: string;
  /** Why. */
  reason: ItemExclusion;
  /** Examinees who answered it (weighted). */
  n: number;
  /** Of them, right (weighted). */
  right: number;
}

/** An examinee left out of the calibration. */
export interface ExcludedPerson {
  /** Examinee label. */
  person: string;
  /** Why (no response at all, or none to an item that is calibrated). */
  reason: "no responses" | "no response to a calibrated item" | "weight 0";
}

/** An examinee who answered every calibrated item right, or every one wrong. */
export interface ExtremePerson {
  /** Examinee label. */
  person: string;
  /** Which extreme. */
  score: "all right" | "all wrong";
  /** Frequency weight (examinees with this pattern). */
  weight: number;
}

/** What {@linkcode screenResponses} returns. */
export interface Screened {
  /** The data to calibrate: kept items and examinees only. */
  data: Responses;
  /** Items left out, in input order. */
  excludedItems: ExcludedItem[];
  /** Examinees left out, in input order. */
  excludedPersons: ExcludedPerson[];
  /** Examinees kept whose calibrated responses are all right or all wrong. */
  extremePersons: ExtremePerson[];
}

/** Returns at most `count` names quoted and joined, with how many more there are. */
export function nameList(names: readonly string[], count = 5): string {
  const shown = names.slice(0, count).map((n) => `"${n}"`).join(", ");
  return names.length > count ? `${shown} and ${names.length - count} more` : shown;
}

/**
 * Screens `input` for calibration (see the module doc); `source` names the data in errors. Throws an
 * {@linkcode InputError} when fewer than two examinees or two items can be calibrated.
 */
export function screenResponses(input: Responses, source = "responses"): Screened {
  const { items, persons, values, weights } = input;
  const excludedPersons: ExcludedPerson[] = [];
  const rows: number[] = [];
  for (const [p, row] of values.entries()) {
    if (!row.some((v) => v !== null)) excludedPersons.push({ person: persons[p], reason: "no responses" });
    else if (!(weights[p] > 0)) excludedPersons.push({ person: persons[p], reason: "weight 0" });
    else rows.push(p);
  }
  const answering = rows.reduce((s, p) => s + weights[p], 0);
  if (answering < 2) {
    throw new InputError(
      { file: source },
      `calibration needs at least 2 examinees with responses, got ${answering}` +
        (rows.length ? ` (${nameList(rows.map((p) => persons[p]))})` : ` of ${persons.length}`),
    );
  }
  const excludedItems: ExcludedItem[] = [];
  const columns: number[] = [];
  for (const [i, item] of items.entries()) {
    let n = 0, right = 0;
    for (const p of rows) {
      const v = values[p][i];
      if (v === null) continue;
      n += weights[p];
      right += weights[p] * v;
    }
    const reason: ItemExclusion | null = n < 2
      ? "fewer than 2 responses"
      : right >= n
      ? "all right"
      : right <= 0
      ? "all wrong"
      : null;
    if (reason) excludedItems.push({ item, reason, n, right });
    else columns.push(i);
  }
  const kept: number[] = [];
  for (const p of rows) {
    if (columns.some((i) => values[p][i] !== null)) kept.push(p);
    else excludedPersons.push({ person: persons[p], reason: "no response to a calibrated item" });
  }
  if (columns.length < 2) {
    const why = excludedItems.map((x) => `"${x.item}" ${x.reason}`).slice(0, 5).join(", ");
    throw new InputError(
      { file: source },
      `calibration needs at least 2 items answered both right and wrong, got ${columns.length} of ` +
        `${items.length}${why ? ` (left out: ${why}${excludedItems.length > 5 ? ", ..." : ""})` : ""}`,
    );
  }
  const count = kept.reduce((s, p) => s + weights[p], 0);
  if (count < 2) {
    throw new InputError(
      { file: source },
      `calibration needs at least 2 examinees with responses to the calibrated items, got ${count}`,
    );
  }
  const order = new Map(persons.map((name, p) => [name, p]));
  excludedPersons.sort((x, y) => order.get(x.person)! - order.get(y.person)!);
  const extremePersons: ExtremePerson[] = [];
  for (const p of kept) {
    const answered = columns.map((i) => values[p][i]).filter((v) => v !== null);
    if (answered.every((v) => v === 1)) {
      extremePersons.push({ person: persons[p], score: "all right", weight: weights[p] });
    } else if (answered.every((v) => v === 0)) {
      extremePersons.push({ person: persons[p], score: "all wrong", weight: weights[p] });
    }
  }
  return {
    data: {
      persons: kept.map((p) => persons[p]),
      items: columns.map((i) => items[i]),
      values: kept.map((p) => columns.map((i) => values[p][i])),
      weights: kept.map((p) => weights[p]),
    },
    excludedItems,
    excludedPersons,
    extremePersons,
  };
}
