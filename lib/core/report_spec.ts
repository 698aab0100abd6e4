/**
 * How a benchmark's results are shown: tables and figures as plain data and the metrics a task's reports display.
 * @module
 */
import type { Summary } from "./summary.ts";

/** A cell: text, a number, or empty. */
export type Cell = string | number | null;

/** A table with a title, column headers, rows and footnotes. */
export interface Table {
  /** Caption. */
  title: string;
  /** Column headers. */
  columns: string[];
  /** Rows of cells, one per column. */
  rows: Cell[][];
  /** Footnotes (method, labels such as OFFLINE). */
  notes: string[];
}

/** A Plotly figure as plain JSON: traces and layout, with its export size. */
export interface FigureSpec {
  /** Plotly traces. */
  data: Record<string, unknown>[];
  /** Plotly layout. */
  layout: Record<string, unknown>;
  /** Export width in CSS pixels (default 720). */
  width?: number;
  /** Export height in CSS pixels (default 420). */
  height?: number;
}

/** How a metric is shown: header label and whether it is a rate (shown in %). */
export interface MetricDisplay {
  /** Metric name in the summary. */
  name: string;
  /** Column header. */
  label: string;
  /** `true` for rates in [0, 1], shown as percentages. */
  percent: boolean;
  /**
   * `true` when every value is 0 or 1 by definition (a share of successes, not a mean that happens to be in
   * [0, 1]): its interval is Wilson's (Clopper–Pearson below 30 values).
   */
  proportion?: boolean;
}

/** How the groups of a field are ordered and named in tables and figures. */
export interface GroupDisplay {
  /** Group keys in display order, by field (keys not listed follow in the summary's order). */
  order?: Readonly<Record<string, readonly string[]>>;
  /** The name a table shows for a group key (e.g. `06 Mental, behavioural or …`); default the key. */
  label?(field: string, key: string): string;
}

/** How a benchmark's summary is shown. */
export interface ReportSpec {
  /** Order and names of groups (summary objects cannot keep the order of keys such as `10` before `01`). */
  groups?: GroupDisplay;
  /** Metrics in column order; the first is the primary metric. */
  metrics: readonly MetricDisplay[];
  /** Name of the overall metric in the overview (e.g. `op`), default the primary metric. */
  overall?: { name: string; label: string };
  /** Benchmark-specific tables over one or more summaries (models or conditions side by side), by file name. */
  tables?: (summaries: readonly Summary[]) => Record<string, Table>;
  /** Benchmark-specific figures over one or more summaries, by file name (empty when the summaries lack the data). */
  figures?: (summaries: readonly Summary[]) => Record<string, FigureSpec>;
}
