/**
 * A transcribed paper table as a {@linkcode Table} (values exactly as printed), optionally with this toolkit's
 * runs placed beside the paper's models, and the cell-level provenance as its own table.
 * @module
 */
import type { Summary } from "../core/summary.ts";
import { formatEstimate } from "../report/tables.ts";
import { type Cell, type Table } from "../core/report_spec.ts";
import { cellKey, type Paper } from "./paper.ts";
import type { CompareSpec, PaperTable } from "./schema.ts";

/** One of this toolkit's runs, shaped like a paper model: a label and a printed value per paper key. */
export interface ComparisonEntry {
  /** Label, e.g. `gpt-4o (medeval)`. */
  label: string;
  /** Values by paper column (or row) key, formatted with CI and n. */
  values: Record<string, string>;
  /** Footnotes the entry adds to the table (each once), e.g. what its letters mean. */
  notes?: string[];
}

/**
 * Returns the compact letters of one of our models in one paper cell — the metric it reads, overall or in one
 * group of a field — among our models compared on the same items (`deno task compare`), or `undefined`.
 */
export type CellLetters = (
  cell: { metric: string; field?: string; group?: string },
  model: string,
) => string | undefined;

/** The footnote of a table whose medeval values carry letters. */
export function lettersNote(benchmark: string): string {
  return "Letters after a medeval value: in the same column (row, where models are columns) our models that " +
    "share a letter are not significantly different (paired McNemar or Wilcoxon tests on the same items, " +
    `Holm-adjusted p > 0.05; reports/runs/${benchmark}/comparison.md); the paper's models are not tested.`;
}

/**
 * Returns one entry per real-model summary of `spec.benchmark` (offline baselines are not models and stay in the
 * benchmark's own tables), mapping each paper key to the metric it corresponds to. With `letters`, each value
 * our comparison of the models covers ends with the model's letters, and the entry carries their footnote.
 */
export function comparisonEntries(
  spec: CompareSpec,
  summaries: readonly Summary[],
  letters?: CellLetters,
): ComparisonEntry[] {
  const runs = summaries.filter((s) => s.benchmark === spec.benchmark && !s.offline);
  if (!spec.rowsPerModel) return runs.map((summary) => comparisonEntry(spec, summary, undefined, letters));
  return runs.flatMap((summary) =>
    spec.rowsPerModel!.map((row) => {
      const entry = comparisonEntry(spec, summary, { field: row.field, group: row.group }, letters);
      return { ...entry, label: `${entry.label} · ${row.label}`, values: { ...row.cells, ...entry.values } };
    })
  );
}

/**
 * Returns one run as a paper model; `within` reads every mapped metric in one group instead; `letters` adds
 * the model's letters to the values that have them.
 */
function comparisonEntry(
  spec: CompareSpec,
  summary: Summary,
  within?: { field: string; group: string },
  letters?: CellLetters,
): ComparisonEntry {
  const values: Record<string, string> = {};
  let lettered = false;
  for (const [key, mapped] of Object.entries(spec.map)) {
    const target = within ? { ...mapped, ...within } : mapped;
    const estimate = target.field && target.group !== undefined
      ? summary.groups[target.field]?.[target.group]?.[target.metric]
      : summary.metrics[target.metric];
    if (!estimate || estimate.value === null) continue;
    const scaled = {
      ...estimate,
      value: estimate.value * spec.scale,
      ci95: estimate.ci95 &&
        [estimate.ci95[0] * spec.scale, estimate.ci95[1] * spec.scale] as [number, number],
    };
    const mark = letters?.(target, summary.model);
    if (mark) lettered = true;
    values[key] = `${formatEstimate(scaled, false, spec.digits)} (n=${estimate.n})${mark ? ` ${mark}` : ""}`;
  }
  const condition = summary.condition === "default" ? "" : `, ${summary.condition}`;
  return {
    label: `${summary.model} (medeval${condition})`,
    values,
    ...(lettered ? { notes: [lettersNote(spec.benchmark)] } : {}),
  };
}

function columnHeader(column: PaperTable["columns"][number], unit?: string): string {
  const base = column.group ? `${column.printed} (${column.group})` : column.printed;
  return unit && !base.includes(unit) ? `${base} [${unit}]` : base;
}

/** Returns the footnotes of a paper table: where it was transcribed from, and its transcription notes. */
function paperTableNotes(paper: Paper, table: PaperTable): string[] {
  return [
    `Transcribed from ${
      paper.file.seed === table.source.file ? "seed " : ""
    }${table.source.file}, ${table.source.location}; values as printed.`,
    ...table.notes,
  ];
}

/**
 * Returns the table as printed. With `entries`, this toolkit's runs are added as extra rows (paper models as
 * rows) or extra columns (paper models as columns), marked `medeval`.
 */
export function paperTable(paper: Paper, table: PaperTable, entries: readonly ComparisonEntry[] = []): Table {
  const cells = paper.cells.get(table.id)!;
  const grouped = table.rows.some((r) => r.group !== undefined);
  const byColumns = table.compare?.modelsAs === "columns";
  const columns = [
    ...(grouped ? [table.groupHeader ?? ""] : []),
    table.rowHeader,
    ...table.columns.map((c) => columnHeader(c, table.unit)),
    ...(byColumns ? entries.map((e) => e.label) : []),
  ];
  const rows: Cell[][] = table.rows.map((row) => [
    ...(grouped ? [row.group ?? ""] : []),
    row.printed,
    ...table.columns.map((c) => cells.get(cellKey(row.key, c.key))?.printed ?? ""),
    ...(byColumns ? entries.map((e) => e.values[row.key] ?? "–") : []),
  ]);
  if (!byColumns) {
    for (const entry of entries) {
      rows.push([
        ...(grouped ? ["this toolkit"] : []),
        entry.label,
        ...table.columns.map((c) => entry.values[c.key] ?? "–"),
      ]);
    }
  }
  const notes = paperTableNotes(paper, table);
  if (entries.length) {
    notes.push(
      "Rows/columns marked medeval are this toolkit's runs: value [95% CI] (n); the paper's values are as printed.",
    );
  }
  for (const note of entries.flatMap((e) => e.notes ?? [])) if (!notes.includes(note)) notes.push(note);
  return {
    title: `${paper.file.short} — ${table.label}: ${table.title}`,
    columns,
    rows,
    notes,
  };
}

/** Returns one row per transcribed cell with its provenance: table, row and column as printed, value, source. */
export function provenanceTable(paper: Paper, table: PaperTable): Table {
  const rows: Cell[][] = [];
  for (const row of table.rows) {
    for (const column of table.columns) {
      const cell = paper.cells.get(table.id)!.get(cellKey(row.key, column.key));
      if (!cell) continue;
      rows.push([
        row.key,
        column.key,
        cell.provenance.row,
        cell.provenance.column,
        cell.printed,
        cell.number ? cell.number.value : null,
        cell.number ? cell.number.halfUnit : null,
        cell.provenance.file,
        cell.provenance.location,
      ]);
    }
  }
  return {
    title: `${table.label} — cells with provenance`,
    columns: [
      "row",
      "column",
      "row as printed",
      "column as printed",
      "printed",
      "value",
      "rounding ±",
      "file",
      "location",
    ],
    rows,
    notes: [],
  };
}
