/**
 * The format of `data/papers/<paper>.json`: a paper's results and statistics tables transcribed cell by cell as
 * printed (with where each came from), the figures to draw from them, and the paper's numeric claims written as
 * small expressions over the tables so they can be recomputed.
 * @module
 */
import { z } from "zod";

/** A cell as printed: the text, or the text with the row label printed beside it where it differs. */
export const PrintedCellSchema = z.union([
  z.string(),
  z.object({
    /** The cell as printed. */
    printed: z.string(),
    /** The row label printed next to this cell, when it differs from the row's label (e.g. a typo). */
    rowPrinted: z.string().optional(),
    /** A remark about this cell. */
    note: z.string().optional(),
  }).strict(),
]);

/** One printed column. */
export const PaperColumnSchema = z.object({
  /** Stable key used by claims and figures. */
  key: z.string().min(1),
  /** Header as printed (our translation in brackets when the paper prints none). */
  printed: z.string(),
  /** Header of the group the column sits under, e.g. a metric row (`ACC.`) or a super-header. */
  group: z.string().optional(),
  /** This column holds exact counts (overrides the table's `exact`). */
  exact: z.boolean().optional(),
}).strict();

/** One printed row with its cells by column key. */
export const PaperRowSchema = z.object({
  /** Stable key used by claims and figures. */
  key: z.string().min(1),
  /** Row label as printed. */
  printed: z.string(),
  /** Row group as printed (e.g. `General` / `Specialized`, a model in a nested table). */
  group: z.string().optional(),
  /** Cells by column key, as printed; a missing key is an empty cell. */
  cells: z.record(z.string(), PrintedCellSchema),
}).strict();

/** A figure to draw from a table. */
export const FigureRequestSchema = z.object({
  /** `bars`: grouped bars; `stacked`: stacked bars; `heatmap`; `radar`. */
  kind: z.enum(["bars", "stacked", "heatmap", "radar"]),
  /** What forms the series (legend entries): the table's rows or its columns (default rows). */
  series: z.enum(["rows", "columns"]).default("rows"),
  /** Only these row keys (default all numeric rows). */
  rows: z.array(z.string()).optional(),
  /** Only these column keys (default all numeric columns). */
  columns: z.array(z.string()).optional(),
  /** Axis title for the values. */
  valueLabel: z.string().optional(),
  /** Logarithmic value axis. */
  log: z.boolean().optional(),
  /** File-name suffix when a table has several figures of one kind. */
  name: z.string().optional(),
}).strict();

/**
 * How a table lines up with this toolkit's results, so real-model runs can be placed beside the paper's
 * models: each paper column (or row) maps to a metric of a benchmark's summary, overall or for one group.
 */
export const CompareSpecSchema = z.object({
  /** Registry name of the benchmark whose runs fill the comparison. */
  benchmark: z.string(),
  /** Whether the paper's models are the table's rows or its columns. */
  modelsAs: z.enum(["rows", "columns"]),
  /** Multiply metric values by this before printing (100 for rates shown as percentages). */
  scale: z.number().default(1),
  /** Decimals to print. */
  digits: z.number().int().min(0).max(4).default(1),
  /** Paper column (or row) key → summary metric, optionally restricted to one group of a field. */
  map: z.record(
    z.string(),
    z.object({ metric: z.string(), field: z.string().optional(), group: z.string().optional() }).strict(),
  ),
  /**
   * With models as rows, the rows each run gets when the paper prints several per model (e.g. one per data
   * set): each reads the map's metrics in group `group` of `field`, and fills `cells` (paper column key → text)
   * as given. Absent: one row per run.
   */
  rowsPerModel: z.array(
    z.object({
      label: z.string(),
      field: z.string(),
      group: z.string(),
      cells: z.record(z.string(), z.string()).default({}),
    }).strict(),
  ).optional(),
}).strict();

/** One transcribed table. */
export const PaperTableSchema = z.object({
  /** File-name-safe id, e.g. `table2`. */
  id: z.string().regex(/^[a-z0-9_]+$/),
  /** How the paper refers to it: `Table 2`, or `Text, §3.3` for numbers printed in running text. */
  label: z.string(),
  /** Our short caption. */
  title: z.string(),
  /** `results` (model scores) or `statistics` (data set facts). */
  kind: z.enum(["results", "statistics"]),
  /** Where the numbers are printed: the seed file (or data file) and the place inside it. */
  source: z.object({ file: z.string(), location: z.string() }).strict(),
  /** Header of the row-label column. */
  rowHeader: z.string(),
  /** Header of the row-group column, when rows are grouped. */
  groupHeader: z.string().optional(),
  /** Numbers are exact counts (no rounding), so recomputation allows no rounding slack. */
  exact: z.boolean().default(false),
  /** Unit of the numbers, shown in headers and axis titles (e.g. `%`). */
  unit: z.string().optional(),
  columns: z.array(PaperColumnSchema).min(1),
  rows: z.array(PaperRowSchema).min(1),
  /** Figures drawn from this table. */
  figures: z.array(FigureRequestSchema).default([]),
  /** How runs of this toolkit line up with the table, if they can. */
  compare: CompareSpecSchema.optional(),
  /** Remarks on the transcription. */
  notes: z.array(z.string()).default([]),
}).strict();

/** Selects cells: a table and row/column keys (`*` = all; `group:<name>` = the rows of a printed group). */
export const CellSetSchema = z.object({
  table: z.string(),
  rows: z.union([z.literal("*"), z.array(z.string())]).default("*"),
  columns: z.union([z.literal("*"), z.array(z.string())]).default("*"),
}).strict();

/**
 * Rank (1 = highest; ties share the better rank) of one row (`axis: "rows"`) or column (`axis: "columns"`)
 * among its peers, by its mean over the `by` keys of the other axis.
 */
export interface RankSpec {
  table: string;
  entity: string;
  axis: "rows" | "columns";
  by: "*" | string[];
  /** Peers to rank among: keys, `group:<name>` (rows of a printed group) or `*` (default). */
  among?: "*" | string | string[];
}

/** An expression that recomputes a claim from the transcribed tables. */
export type Expr =
  | { const: number }
  | { cell: [string, string, string] }
  | { mean: z.input<typeof CellSetSchema> }
  | { sum: z.input<typeof CellSetSchema> }
  | { max: z.input<typeof CellSetSchema> }
  | { min: z.input<typeof CellSetSchema> }
  | { count: z.input<typeof CellSetSchema> }
  | { diff: [Expr, Expr] }
  | { ratio: [Expr, Expr] }
  | { relative_change_pct: [Expr, Expr] }
  | { share_pct: [Expr, Expr] }
  | { add: Expr[] }
  | { avg: Expr[] }
  | { rank: RankSpec }
  | { data: [string, string] };

/** zod schema of {@linkcode Expr}. */
export const ExprSchema: z.ZodType<Expr> = z.lazy(() =>
  z.union([
    z.object({ const: z.number() }).strict(),
    z.object({ cell: z.tuple([z.string(), z.string(), z.string()]) }).strict(),
    z.object({ mean: CellSetSchema }).strict(),
    z.object({ sum: CellSetSchema }).strict(),
    z.object({ max: CellSetSchema }).strict(),
    z.object({ min: CellSetSchema }).strict(),
    z.object({ count: CellSetSchema }).strict(),
    z.object({ diff: z.tuple([ExprSchema, ExprSchema]) }).strict(),
    z.object({ ratio: z.tuple([ExprSchema, ExprSchema]) }).strict(),
    z.object({ relative_change_pct: z.tuple([ExprSchema, ExprSchema]) }).strict(),
    z.object({ share_pct: z.tuple([ExprSchema, ExprSchema]) }).strict(),
    z.object({ add: z.array(ExprSchema).min(1) }).strict(),
    z.object({ avg: z.array(ExprSchema).min(1) }).strict(),
    z.object({
      rank: z.object({
        table: z.string(),
        entity: z.string(),
        axis: z.enum(["rows", "columns"]),
        by: z.union([z.literal("*"), z.array(z.string())]),
        among: z.union([z.array(z.string()), z.string()]).optional(),
      }).strict(),
    }).strict(),
    z.object({ data: z.tuple([z.string(), z.string()]) }).strict(),
  ]) as z.ZodType<Expr>
);

/**
 * A numeric claim of the paper. `stated` is the number as the paper prints it (its precision sets the rounding
 * slack) or a printed table cell; `relation` says how it must compare with the recomputed value. `forEach`
 * repeats the claim for every row or column, substituting `$row` / `$column` in the text and expressions.
 */
export const ClaimSpecSchema = z.object({
  /** Where the paper states it: `Table 3`, `§4 ¶2`, `Abstract`. */
  where: z.string(),
  /** The claim in our words. */
  claim: z.string(),
  /** As printed (`"69.2"`, `"26.9%"`, `"33,735"`), a range `["4", "6"]` for `between`, or a table cell. */
  stated: z.union([
    z.string(),
    z.tuple([z.string(), z.string()]),
    z.object({ cell: z.tuple([z.string(), z.string(), z.string()]) }).strict(),
  ]),
  /** `approx` (default): equal within printed precision; `eq`: exactly equal; others compare to `stated`. */
  relation: z.enum(["approx", "eq", "gt", "ge", "lt", "le", "between"]).default("approx"),
  /** The stated number is exact (a count), so it gets no rounding slack. */
  exact: z.boolean().default(false),
  /** How the value is recomputed. */
  expr: ExprSchema,
  /** Repeat the claim for every row / column of a table (or the listed keys). */
  forEach: z.object({
    table: z.string(),
    rows: z.union([z.literal("*"), z.array(z.string())]).optional(),
    columns: z.union([z.literal("*"), z.array(z.string())]).optional(),
  }).strict().optional(),
  /** Remark shown with the result. */
  note: z.string().optional(),
}).strict();

/** One `data/papers/<paper>.json` file. */
export const PaperFileSchema = z.object({
  /** Short id, also the output folder name. */
  paper: z.string().regex(/^[a-z0-9_]+$/),
  /** The paper's title. */
  title: z.string(),
  /** Short name for captions, e.g. `CliMedBench`. */
  short: z.string(),
  /** Authors, venue, year. */
  citation: z.string(),
  /** The seed file the numbers were transcribed from (in `../shared/seeds/`). */
  seed: z.string(),
  /** Registry names of the benchmarks this paper defines. */
  benchmarks: z.array(z.string()).default([]),
  /** What the seed does not give (figures without numbers, missing tables). */
  notes: z.array(z.string()).default([]),
  tables: z.array(PaperTableSchema).min(1),
  claims: z.array(ClaimSpecSchema).default([]),
}).strict();

/** A parsed `data/papers/<paper>.json`. */
export type PaperFile = z.output<typeof PaperFileSchema>;
/** A transcribed table. */
export type PaperTable = z.output<typeof PaperTableSchema>;
/** A claim as written in the file. */
export type ClaimSpec = z.output<typeof ClaimSpecSchema>;
/** A selection of cells. */
export type CellSet = z.output<typeof CellSetSchema>;
/** A figure request. */
export type FigureRequest = z.output<typeof FigureRequestSchema>;
/** A comparison mapping. */
export type CompareSpec = z.output<typeof CompareSpecSchema>;
