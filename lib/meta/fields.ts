/**
 * The fields a judge and human raters are compared on, and how one rating of each side becomes a comparable
 * code. A field has a level — binary, nominal, ordinal or interval — that decides which statistics apply and
 * how several ratings of one item reduce to one reading: the lower median for binary and ordinal codes (a tie
 * between two middle values reads as the lower; for 0/1, a tie reads 0), the mode for nominal categories (a
 * tie gives no reading), the mean for interval values. Ordinal categories (`Correct`, `Partially_correct`, …)
 * are coded by their position in the field's levels, so every binary, ordinal or interval code is a number.
 * @module
 */
import type { NamedValue, StoredScore } from "../core/records.ts";
import type { RatingField } from "../core/task.ts";

/** A comparable value: a number (binary, ordinal position, interval value) or a nominal category. */
export type Code = number | string;

/** Level of measurement of a field: it decides the statistics and the reading of several ratings. */
export type FieldLevel = "binary" | "nominal" | "ordinal" | "interval";

/** What a field is, as reported in `meta.json` (no functions). */
export interface FieldScale {
  /** Field name, e.g. `correctness`, `usable`. */
  name: string;
  /** Its level. */
  level: FieldLevel;
  /** The codes in order (binary `[0, 1]`, ordinal positions or values, nominal categories); none for interval. */
  levels?: readonly Code[];
  /** Names of the ordinal codes, when they stand for categories (code i is `labels[i]`). */
  labels?: readonly string[];
  /** `true` when the judge and the humans rate it on different scales: only ρ and calibration apply. */
  ownScales: boolean;
  /** Where the field comes from: a value both sides report by name, or a rule of the benchmark. */
  description: string;
}

/** A field with the readers of both sides. */
export interface MetaField extends FieldScale {
  /** The code of one valid judging, or `null` when it gives none (an abstention). */
  judge(score: StoredScore): Code | null;
  /**
   * One judge's reading of an item from its valid judgings (its repeats); default: the judgings' codes
   * reduced by {@linkcode readingOf}.
   */
  reading?(judgings: readonly StoredScore[]): Code | null;
  /** The code of one human rating (its named values), or `null`. */
  human(values: Readonly<Record<string, NamedValue>>): Code | null;
}

/** Returns `true` when the field's codes are numbers (every level but nominal). */
export function isNumeric(level: FieldLevel): boolean {
  return level !== "nominal";
}

/**
 * Returns one reading of several ratings of an item at `level`: binary and ordinal the lower median, nominal
 * the mode (`null` on a tie), interval the mean; `null` when no rating is present.
 */
export function readingOf(values: readonly (Code | null)[], level: FieldLevel): Code | null {
  const present = values.filter((v): v is Code => v !== null);
  if (present.length === 0) return null;
  if (level === "nominal") {
    const counts = new Map<Code, number>();
    for (const v of present) counts.set(v, (counts.get(v) ?? 0) + 1);
    const top = Math.max(...counts.values());
    const modes = [...counts].filter(([, c]) => c === top);
    return modes.length === 1 ? modes[0][0] : null;
  }
  const numbers = present.map(Number).sort((a, b) => a - b);
  if (level === "interval") return numbers.reduce((s, v) => s + v, 0) / numbers.length;
  return numbers[Math.floor((numbers.length - 1) / 2)];
}

/** Returns one judge's reading of an item from its judgings (invalid ones are left out). */
export function judgeReading(field: MetaField, judgings: readonly StoredScore[]): Code | null {
  const valid = judgings.filter((s) => s.valid);
  if (field.reading) return field.reading(valid);
  return readingOf(valid.map((s) => field.judge(s)), field.level);
}

/** Returns `value` coded for a field with `levels` (a category's position when the levels are names). */
export function codeOf(
  value: NamedValue | undefined,
  scale: Pick<FieldScale, "level" | "levels" | "labels">,
): Code | null {
  if (value === null || value === undefined) return null;
  if (scale.labels) {
    const at = scale.labels.indexOf(String(value));
    return at < 0 ? null : at;
  }
  if (scale.level === "nominal") return String(value);
  const number = typeof value === "number" ? value : Number(value);
  if (!Number.isFinite(number) || (typeof value === "string" && value.trim() === "")) return null;
  if (scale.levels && !scale.levels.includes(number)) return null;
  return number;
}

/** The integers `min..max`. */
function integerRange(min: number, max: number): number[] {
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

/**
 * Returns the scale of a field both sides report by name: from the human rating's declaration when there is
 * one (categories in order → ordinal, unless `nominal`; whole numbers 0..1 → binary; other whole numbers →
 * ordinal over min..max; otherwise interval), else from the values seen (text → nominal; 0/1 → binary; whole
 * numbers → ordinal over the range seen; other numbers → interval).
 */
export function sharedScale(
  name: string,
  declared: RatingField | undefined,
  nominal: boolean,
  seen: readonly NamedValue[],
): FieldScale {
  const description = `"${name}", reported by the judge and rated by the humans`;
  const base = { name, ownScales: false, description };
  if (declared?.levels) {
    return nominal
      ? { ...base, level: "nominal", levels: [...declared.levels] }
      : { ...base, level: "ordinal", levels: declared.levels.map((_, i) => i), labels: [...declared.levels] };
  }
  if (declared) {
    if (declared.integer && declared.min === 0 && declared.max === 1) {
      return { ...base, level: "binary", levels: [0, 1] };
    }
    if (declared.integer) {
      return { ...base, level: "ordinal", levels: integerRange(declared.min, declared.max) };
    }
    return { ...base, level: "interval" };
  }
  const present = seen.filter((v) => v !== null);
  if (present.some((v) => typeof v !== "number")) {
    return { ...base, level: "nominal", levels: [...new Set(present.map(String))].sort() };
  }
  const numbers = present as number[];
  if (numbers.every((v) => v === 0 || v === 1)) return { ...base, level: "binary", levels: [0, 1] };
  if (numbers.every(Number.isInteger)) {
    return { ...base, level: "ordinal", levels: integerRange(Math.min(...numbers), Math.max(...numbers)) };
  }
  return { ...base, level: "interval" };
}

/** Returns the field both sides report as `name`, read from the judge's and the humans' named values. */
export function sharedField(scale: FieldScale): MetaField {
  return {
    ...scale,
    judge: (score) => codeOf(score.values?.[scale.name], scale),
    human: (values) => codeOf(values[scale.name], scale),
  };
}

/** Returns only what `meta.json` records of a field. */
export function scaleOf(field: FieldScale): FieldScale {
  const { name, level, levels, labels, ownScales, description } = field;
  return {
    name,
    level,
    ...(levels ? { levels } : {}),
    ...(labels ? { labels } : {}),
    ownScales,
    description,
  };
}
