/**
 * A PerMedCQA record as published (`Data/{train,eval,test}.json`): the consumer's question, the physician's
 * answer, metadata and the two annotations. Column names are the published ones unless `--columns` maps them.
 * @module
 */

/** The columns a record is read from, by key; `--columns KEY=NAME` renames any of them. */
export const DEFAULT_COLUMNS = {
  id: "instance_id",
  title: "Title",
  question: "Question",
  answer: "Expert_Answer",
  category: "Category",
  specialty: "Specialty",
  sex: "Sex",
  age: "Age",
  source: "dataset_source",
  icd: "ICD_11",
  type: "Question_Type",
} as const;

/** A column key. */
export type ColumnKey = keyof typeof DEFAULT_COLUMNS;

/** Column names by key, after `--columns`. */
export type Columns = Record<ColumnKey, string>;

/** Sex as tabulated. */
export const SEXES = ["female", "male", "unknown"] as const;

/** Spellings of each sex (lower case), Persian included. */
export const SEX_ALIASES: Record<string, typeof SEXES[number]> = {
  female: "female",
  f: "female",
  woman: "female",
  زن: "female",
  خانم: "female",
  male: "male",
  m: "male",
  man: "male",
  مرد: "male",
  آقا: "male",
  unknown: "unknown",
  نامشخص: "unknown",
  "": "unknown",
};

/** Age bands (years), in table order; ages are banded as `[lo, hi]` inclusive. */
export const AGE_BANDS: readonly { label: string; lo: number; hi: number }[] = [
  { label: "0-17", lo: 0, hi: 17 },
  { label: "18-29", lo: 18, hi: 29 },
  { label: "30-44", lo: 30, hi: 44 },
  { label: "45-64", lo: 45, hi: 64 },
  { label: "65+", lo: 65, hi: 150 },
];

/** The label of records without an age. */
export const UNKNOWN_AGE = "unknown";

/** Returns the age band of `age` (years), or {@linkcode UNKNOWN_AGE}. */
export function ageBand(age: number | null): string {
  if (age === null) return UNKNOWN_AGE;
  return AGE_BANDS.find((b) => age >= b.lo && age <= b.hi)?.label ?? UNKNOWN_AGE;
}

/** The forums of the paper's Table 1, as tabulated. */
export const SOURCES = ["DrYab", "GetZoop", "HiSalamat", "Mavara-e-Teb"] as const;

/** The splits of the published layout. */
export const SPLITS = ["train", "eval", "test"] as const;

/** Fields PerMedCQA results are grouped by. */
export const GROUP_FIELDS = ["icd11", "question_type", "sex", "age_band", "source", "icd11_x_type"] as const;
