/**
 * The size of each benchmark's full published set, read from the transcribed paper data (`data/papers/`), with
 * where it comes from: the n a power analysis of the benchmark starts from.
 * @module
 */
import { cellKey, loadPapers, type Paper } from "../papers/paper.ts";

/** Where a benchmark's published size is printed: cells of a transcribed table, summed. */
interface SizeCells {
  /** Paper file id (`data/papers/<paper>.json`). */
  paper: string;
  /** Table id. */
  table: string;
  /** Row keys to sum, or `*` for every row. */
  rows: readonly string[] | "*";
  /** Column key. */
  column: string;
  /** What is counted. */
  unit: string;
  /** What else the paper says about the size, when it differs. */
  note?: string;
}

/** The cells each benchmark's published size is read from. */
export const SIZE_CELLS: Readonly<Record<string, SizeCells>> = {
  "llmeval-med": {
    paper: "llmeval_med",
    table: "facts",
    rows: ["test_questions"],
    column: "value",
    unit: "questions in the public test set",
  },
  climedbench: {
    paper: "climedbench",
    table: "scenarios",
    rows: "*",
    column: "size",
    unit: "questions, the 14 scenarios' sizes summed",
    note: "the paper's text states 33,735 (Table 4: 33.7k), more than its scenario sheets add up to " +
      "(docs/reproduce.md)",
  },
  permedcqa: {
    paper: "permedcqa",
    table: "split",
    rows: ["test"],
    column: "value",
    unit: "question-answer pairs in the test split",
  },
  medgpteval: {
    paper: "medgpteval",
    table: "datasets",
    rows: ["dialogues", "case_reports"],
    column: "count",
    unit: "items (the multi-turn dialogues and case reports, each judged as one)",
  },
};

/** A benchmark's published size and its source. */
export interface PublishedSize {
  /** Benchmark name. */
  benchmark: string;
  /** The number of items. */
  n: number;
  /** What is counted. */
  unit: string;
  /** Where it is printed: paper file, table, rows and the paper's own location. */
  source: string;
}

/** Returns the size `cells` name in `paper`, or `undefined` when a cell is missing or not a number. */
function sizeIn(paper: Paper, cells: SizeCells): { n: number; location: string } | undefined {
  const table = paper.file.tables.find((t) => t.id === cells.table);
  const values = paper.cells.get(cells.table);
  if (!table || !values) return undefined;
  const rows = cells.rows === "*" ? table.rows.map((r) => r.key) : cells.rows;
  let n = 0;
  for (const row of rows) {
    const value = values.get(cellKey(row, cells.column))?.number?.value;
    if (value === undefined) return undefined;
    n += value;
  }
  return { n, location: table.source.location };
}

/**
 * Returns the published size of every benchmark of {@linkcode SIZE_CELLS} that the paper files in `papersDir`
 * (default `data/papers/`) hold, by benchmark name.
 */
export async function publishedSizes(papersDir?: string): Promise<Map<string, PublishedSize>> {
  const papers = new Map((await loadPapers(papersDir)).map((p) => [p.file.paper, p]));
  const sizes = new Map<string, PublishedSize>();
  for (const [benchmark, cells] of Object.entries(SIZE_CELLS)) {
    const paper = papers.get(cells.paper);
    const found = paper && sizeIn(paper, cells);
    if (!found) continue;
    const rows = cells.rows === "*"
      ? "every row"
      : `row${cells.rows.length > 1 ? "s" : ""} ${cells.rows.join(" + ")}`;
    sizes.set(benchmark, {
      benchmark,
      n: found.n,
      unit: cells.unit,
      source: `data/papers/${cells.paper}.json, table ${cells.table}, ${rows}, column ${cells.column} ` +
        `(${paper.file.short}: ${found.location})${cells.note ? `; ${cells.note}` : ""}`,
    });
  }
  return sizes;
}
