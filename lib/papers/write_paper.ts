/**
 * Writes one paper's re-created tables (Markdown, CSV, LaTeX, plus a CSV of every cell with its provenance)
 * and declares its figures, with this toolkit's runs beside the paper's models where the table maps to them.
 * @module
 */
import type { Sample } from "../core/sample.ts";
import { toConversations } from "../core/sample.ts";
import type { FigureSet } from "../report/figures.ts";
import type { Summary } from "../core/summary.ts";
import { toCsv, writeTable } from "../report/tables.ts";
import { type Table } from "../core/report_spec.ts";
import type { Paper } from "./paper.ts";
import { paperTableFigures } from "./paper_figures.ts";
import { comparisonEntries, type ComparisonEntry, paperTable, provenanceTable } from "./paper_tables.ts";

/** A table written to disk. */
export interface WrittenTable {
  /** Table id (file stem). */
  id: string;
  /** The table as written. */
  table: Table;
  /** Files written, relative to the output root. */
  files: string[];
}

/** What was written for one paper. */
export interface PaperOutputs {
  /** The paper. */
  paper: Paper;
  /** Its tables. */
  tables: WrittenTable[];
  /** Its figures (rendered later, together with all others). */
  figures: FigureSet;
  /** Figure directory relative to the output root. */
  figuresDir: string;
}

/**
 * Writes the tables of `paper` under `<root>/reports/papers/<paper>/` and returns them with the figure set for
 * `<root>/figures/papers/<paper>/`. `summaries` are this toolkit's runs, placed beside the paper's models; `extra`
 * adds rows of other results (by table id), such as the toolkit's own CAT beside CliMedBench Table 3.
 */
export async function writePaperTables(
  paper: Paper,
  root: string,
  summaries: readonly Summary[],
  extra: Readonly<Record<string, readonly ComparisonEntry[]>> = {},
): Promise<PaperOutputs> {
  const id = paper.file.paper;
  const tablesRel = `reports/papers/${id}`;
  const figuresRel = `figures/papers/${id}`;
  const dir = `${root}/${tablesRel}`;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const tables: WrittenTable[] = [];
  const figures: FigureSet = { dir: `${root}/${figuresRel}`, figures: {} };
  for (const spec of paper.file.tables) {
    const entries = [
      ...(spec.compare ? comparisonEntries(spec.compare, summaries) : []),
      ...(extra[spec.id] ?? []),
    ];
    const table = paperTable(paper, spec, entries);
    const files = await writeTable(dir, spec.id, table);
    await Deno.writeTextFile(`${dir}/${spec.id}_cells.csv`, toCsv(provenanceTable(paper, spec)));
    files.push(`${dir}/${spec.id}_cells.csv`);
    tables.push({ id: spec.id, table, files: files.map((f) => f.slice(root.length + 1)) });
    Object.assign(figures.figures, paperTableFigures(paper, spec));
  }
  return { paper, tables, figures, figuresDir: figuresRel };
}

/** Numbers computed from a full data set for claim checks: `samples`, `conversations`, `distinct:<field>`. */
export function datasetFacts(
  samples: readonly Sample[],
  groupFields: readonly string[],
): Record<string, number> {
  const facts: Record<string, number> = {
    samples: samples.length,
    conversations: toConversations([...samples]).length,
  };
  for (const field of groupFields) {
    facts[`distinct:${field}`] = new Set(samples.map((s) => s.fields[field]).filter((v) => v !== null)).size;
  }
  return facts;
}
