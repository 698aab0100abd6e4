/**
 * Loads `data/papers/<paper>.json`, validates it, and resolves every printed cell into a number with the
 * rounding slack its printed precision implies, keeping where it was printed.
 * @module
 */
import { InputError } from "../core/errors.ts";
import { parseRecord } from "../core/validate.ts";
import { type PaperFile, PaperFileSchema, type PaperTable } from "./schema.ts";
import { readTextStrict } from "../core/text_file.ts";
import { projectPath } from "../core/fs.ts";

/** A printed number: its value and half a unit of its last printed digit (0 for exact counts). */
export interface PrintedNumber {
  /** The value, e.g. `33700` for `33.7k`, `50.5` for `50.5%`. */
  value: number;
  /** Rounding slack: the true value lies within `value ± halfUnit`. */
  halfUnit: number;
}

const NUMBER = /^([+-]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?\s*(%|k)?(?:\s+[A-Za-z].*)?$/;

/**
 * Parses a number as printed (`87.8`, `67.13`, `33,735`, `50.5%`, `33.7k`, `1k labeled`); returns `null` for text.
 * `exact` means the printed digits are exact (a count), so there is no rounding slack — except for `k`
 * abbreviations, which are always rounded.
 */
export function parsePrinted(printed: string, exact = false): PrintedNumber | null {
  const m = NUMBER.exec(printed.trim());
  if (!m) return null;
  const [, sign, whole, fraction = "", suffix] = m;
  const scale = suffix === "k" ? 1000 : 1;
  const value = Number(`${sign}${whole.replaceAll(",", "")}${fraction ? `.${fraction}` : ""}`) * scale;
  const halfUnit = exact && suffix !== "k" ? 0 : 0.5 * 10 ** -fraction.length * scale;
  return { value, halfUnit };
}

/** One cell of a transcribed table, resolved, with its provenance. */
export interface PaperCell {
  /** Row key. */
  row: string;
  /** Column key. */
  column: string;
  /** As printed. */
  printed: string;
  /** The number, or `null` for a text or empty cell. */
  number: PrintedNumber | null;
  /** Where it is printed: file, table, row label and column label as printed. */
  provenance: { file: string; location: string; row: string; column: string };
  /** Remark on the cell. */
  note?: string;
}

/** A validated paper file with its cells resolved. */
export interface Paper {
  /** The file as parsed. */
  file: PaperFile;
  /** Path it was read from. */
  path: string;
  /** Cells by table id, then `row\u0000column`. */
  cells: Map<string, Map<string, PaperCell>>;
}

/** Returns the key of a cell in {@linkcode Paper.cells}. */
export function cellKey(row: string, column: string): string {
  return `${row}\u0000${column}`;
}

function resolveTable(table: PaperTable, path: string, tableIndex: number): Map<string, PaperCell> {
  const cells = new Map<string, PaperCell>();
  const columns = new Map(table.columns.map((c) => [c.key, c]));
  const where = (row: number, field: string) => ({
    file: path,
    record: `tables[${tableIndex}] (${table.id}) rows[${row}]`,
    field,
  });
  if (columns.size !== table.columns.length) {
    throw new InputError(
      { file: path, record: `tables[${tableIndex}] (${table.id})` },
      "duplicate column key",
    );
  }
  const seen = new Set<string>();
  table.rows.forEach((row, i) => {
    if (seen.has(row.key)) throw new InputError(where(i, "key"), `duplicate row key "${row.key}"`);
    seen.add(row.key);
    for (const [key, raw] of Object.entries(row.cells)) {
      const column = columns.get(key);
      if (!column) {
        throw new InputError(
          where(i, `cells.${key}`),
          `no column "${key}" in table ${table.id}; columns: ${[...columns.keys()].join(", ")}`,
        );
      }
      const printed = typeof raw === "string" ? raw : raw.printed;
      cells.set(cellKey(row.key, key), {
        row: row.key,
        column: key,
        printed,
        number: parsePrinted(printed, column.exact ?? table.exact),
        provenance: {
          file: table.source.file,
          location: table.source.location,
          row: typeof raw === "string" ? row.printed : raw.rowPrinted ?? row.printed,
          column: column.group ? `${column.printed} (${column.group})` : column.printed,
        },
        note: typeof raw === "string" ? undefined : raw.note,
      });
    }
  });
  return cells;
}

/** Validates a parsed paper object read from `path` and resolves its cells. */
export function toPaper(value: unknown, path: string): Paper {
  const file = parseRecord(PaperFileSchema, value, path, "paper");
  const ids = new Set<string>();
  const cells = new Map<string, Map<string, PaperCell>>();
  file.tables.forEach((table, i) => {
    if (ids.has(table.id)) {
      throw new InputError(
        { file: path, record: `tables[${i}]`, field: "id" },
        `duplicate table id "${table.id}"`,
      );
    }
    ids.add(table.id);
    cells.set(table.id, resolveTable(table, path, i));
  });
  return { file, path, cells };
}

/** Reads and validates one paper file. */
export async function loadPaper(path: string): Promise<Paper> {
  const text = await readTextStrict(path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError({ file: path }, `not valid JSON: ${(err as Error).message}`);
  }
  return toPaper(value, path);
}

/** The project's folder of paper files. */
const PAPERS_DIR = projectPath("data/papers/");

/** Reads every `*.json` in `dir` (default `data/papers/`), sorted by file name. */
export async function loadPapers(dir = PAPERS_DIR): Promise<Paper[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
  }
  names.sort();
  const papers: Paper[] = [];
  for (const name of names) papers.push(await loadPaper(`${dir.replace(/\/$/, "")}/${name}`));
  return papers;
}

/**
 * Returns a row's label for captions and claim texts: as printed, prefixed with its group (`ChatGPT · Data set A`)
 * when the printed label repeats within the table.
 */
export function rowLabel(table: PaperTable, row: PaperTable["rows"][number]): string {
  const repeated = table.rows.filter((r) => r.printed === row.printed).length > 1;
  return repeated && row.group ? `${row.group} · ${row.printed}` : row.printed;
}
