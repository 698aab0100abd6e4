/**
 * Recomputes a paper's numeric claims from its transcribed tables. Every printed number stands for an interval
 * (its value ± half a unit of its last digit), so a recomputation is an interval too; a claim "holds within
 * printed precision" when the stated interval and the recomputed one overlap. Ranks, counts and comparisons
 * use the printed values themselves.
 * @module
 */
import { InputError } from "../core/errors.ts";
import { cellKey, type Paper, type PaperCell, parsePrinted, type PrintedNumber, rowLabel } from "./paper.ts";
import type { CellSet, ClaimSpec, Expr, RankSpec } from "./schema.ts";

/** A recomputed value: the value from the printed numbers and the interval all unrounded values allow. */
export interface Interval {
  /** From the printed numbers as they stand. */
  mid: number;
  /** Lowest value consistent with the printed precision. */
  lo: number;
  /** Highest value consistent with the printed precision. */
  hi: number;
}

/** Numbers computed from a benchmark's data file, by benchmark then fact name (`samples`, `distinct:<field>`). */
export type DataFacts = Record<string, Record<string, number> | undefined>;

/** One checked claim, as written to `reports/claims.json`. */
export interface ClaimResult {
  /** Paper id. */
  paper: string;
  /** Where the paper states it. */
  where: string;
  /** The claim in our words. */
  claim: string;
  /** The stated number (a `[low, high]` pair for ranges). */
  stated: number | [number, number];
  /** The stated number as printed (`69.0`, `33,735`, `4–6`), or the table cell it is read from. */
  stated_printed: string;
  /** The value recomputed from the printed numbers, or `null` when it cannot be computed here. */
  recomputed: number | null;
  /** Range of the recomputed value allowed by the printed precision. */
  interval: [number, number] | null;
  /** How stated and recomputed must compare. */
  relation: ClaimSpec["relation"];
  /** Whether it holds; `null` when it could not be checked (see `note`). */
  holds: boolean | null;
  /** Remark (reading of the claim, why it was not checked). */
  note?: string;
}

const exact = (v: number): Interval => ({ mid: v, lo: v, hi: v });

/** Rounds for stable JSON output (6 decimals). */
function tidy(v: number): number {
  const r = Number(v.toFixed(6));
  return Object.is(r, -0) ? 0 : r;
}

/** Evaluates claims of one paper; `where` prefixes error messages. */
class Evaluator {
  constructor(readonly paper: Paper, readonly facts: DataFacts, readonly where: string) {}

  fail(message: string): never {
    throw new InputError({ file: this.paper.path, record: this.where }, message);
  }

  table(id: string) {
    const table = this.paper.file.tables.find((t) => t.id === id);
    if (!table) this.fail(`unknown table "${id}"`);
    return table;
  }

  rowKeys(tableId: string, rows: CellSet["rows"] | string): string[] {
    const table = this.table(tableId);
    if (rows === "*") return table.rows.map((r) => r.key);
    if (typeof rows === "string" && rows.startsWith("group:")) {
      const group = rows.slice("group:".length);
      const keys = table.rows.filter((r) => r.group === group).map((r) => r.key);
      if (keys.length === 0) this.fail(`no rows in group "${group}" of table ${tableId}`);
      return keys;
    }
    const list = typeof rows === "string" ? [rows] : rows;
    for (const key of list) {
      if (!table.rows.some((r) => r.key === key)) this.fail(`unknown row "${key}" in table ${tableId}`);
    }
    return list;
  }

  columnKeys(tableId: string, columns: CellSet["columns"] | string): string[] {
    const table = this.table(tableId);
    if (columns === "*") return table.columns.map((c) => c.key);
    const list = typeof columns === "string" ? [columns] : columns;
    for (const key of list) {
      if (!table.columns.some((c) => c.key === key)) this.fail(`unknown column "${key}" in table ${tableId}`);
    }
    return list;
  }

  cell(tableId: string, row: string, column: string): PaperCell & { number: PrintedNumber } {
    this.rowKeys(tableId, [row]);
    this.columnKeys(tableId, [column]);
    const cell = this.paper.cells.get(tableId)?.get(cellKey(row, column));
    if (!cell?.number) this.fail(`cell ${tableId}[${row}, ${column}] is not a number`);
    return cell as PaperCell & { number: PrintedNumber };
  }

  /** Numeric cells of a selection, in row-major order (text and empty cells are skipped). */
  numbers(set: CellSet): PrintedNumber[] {
    const out: PrintedNumber[] = [];
    for (const row of this.rowKeys(set.table, set.rows)) {
      for (const column of this.columnKeys(set.table, set.columns)) {
        const number = this.paper.cells.get(set.table)?.get(cellKey(row, column))?.number;
        if (number) out.push(number);
      }
    }
    if (out.length === 0) this.fail(`no numeric cells selected in table ${set.table}`);
    return out;
  }

  rank(spec: RankSpec): number {
    const byRows = spec.axis === "rows";
    const score = (entity: string): number => {
      const set: CellSet = byRows
        ? { table: spec.table, rows: [entity], columns: spec.by }
        : { table: spec.table, rows: spec.by, columns: [entity] };
      const values = this.numbers(set).map((n) => n.value);
      return values.reduce((a, b) => a + b, 0) / values.length;
    };
    const peers = byRows
      ? this.rowKeys(spec.table, spec.among ?? "*")
      : this.columnKeys(spec.table, (spec.among as string[] | "*" | undefined) ?? "*");
    if (!peers.includes(spec.entity)) this.fail(`"${spec.entity}" is not among the ranked peers`);
    const own = score(spec.entity);
    return 1 + peers.filter((p) => score(p) > own + 1e-12).length;
  }

  /** Applies a monotone aggregate to the low ends, printed values and high ends of the selected cells. */
  aggregate(set: Partial<CellSet> & { table: string }, f: (xs: number[]) => number): Interval {
    const nums = this.numbers(normalizeSet(set));
    return {
      mid: f(nums.map((n) => n.value)),
      lo: f(nums.map((n) => n.value - n.halfUnit)),
      hi: f(nums.map((n) => n.value + n.halfUnit)),
    };
  }

  eval(expr: Expr): Interval | null {
    if ("const" in expr) return exact(expr.const);
    if ("cell" in expr) {
      const { number } = this.cell(...expr.cell);
      return { mid: number.value, lo: number.value - number.halfUnit, hi: number.value + number.halfUnit };
    }
    if ("count" in expr) return exact(this.numbers(normalizeSet(expr.count)).length);
    if ("mean" in expr) return this.aggregate(expr.mean, (xs) => xs.reduce((a, b) => a + b, 0) / xs.length);
    if ("sum" in expr) return this.aggregate(expr.sum, (xs) => xs.reduce((a, b) => a + b, 0));
    if ("max" in expr) return this.aggregate(expr.max, (xs) => Math.max(...xs));
    if ("min" in expr) return this.aggregate(expr.min, (xs) => Math.min(...xs));
    if ("data" in expr) {
      const [benchmark, fact] = expr.data;
      const value = this.facts[benchmark]?.[fact];
      return value === undefined ? null : exact(value);
    }
    if ("rank" in expr) return exact(this.rank(expr.rank));
    if ("add" in expr || "avg" in expr) {
      const parts = ("add" in expr ? expr.add : expr.avg).map((e) => this.eval(e));
      if (parts.some((p) => p === null)) return null;
      const k = "avg" in expr ? parts.length : 1;
      const total = (key: keyof Interval) => parts.reduce((a, p) => a + p![key], 0) / k;
      return { mid: total("mid"), lo: total("lo"), hi: total("hi") };
    }
    const pair = "diff" in expr
      ? expr.diff
      : "ratio" in expr
      ? expr.ratio
      : "relative_change_pct" in expr
      ? expr.relative_change_pct
      : expr.share_pct;
    const a = this.eval(pair[0]);
    const b = this.eval(pair[1]);
    if (!a || !b) return null;
    if ("diff" in expr) return { mid: a.mid - b.mid, lo: a.lo - b.hi, hi: a.hi - b.lo };
    if (b.lo <= 0 || a.lo < 0) this.fail("ratios need positive operands");
    const ratio = { mid: a.mid / b.mid, lo: a.lo / b.hi, hi: a.hi / b.lo };
    if ("ratio" in expr) return ratio;
    if ("share_pct" in expr) return { mid: ratio.mid * 100, lo: ratio.lo * 100, hi: ratio.hi * 100 };
    // relative change from a (before) to b (after), in percent
    return { mid: (b.mid / a.mid - 1) * 100, lo: (b.lo / a.hi - 1) * 100, hi: (b.hi / a.lo - 1) * 100 };
  }
}

function normalizeSet(set: Partial<CellSet> & { table: string }): CellSet {
  return { table: set.table, rows: set.rows ?? "*", columns: set.columns ?? "*" };
}

/** Replaces every string equal to `$row` / `$column` inside `value`. */
function substitute<T>(value: T, row: string | undefined, column: string | undefined): T {
  if (typeof value === "string") {
    if (value === "$row" && row !== undefined) return row as T;
    if (value === "$column" && column !== undefined) return column as T;
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, row, column)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substitute(v, row, column)]),
    ) as T;
  }
  return value;
}

/** Expands `forEach` into one claim per row / column, with keys substituted and labels in the text. */
function expandClaims(paper: Paper): { spec: ClaimSpec; index: number }[] {
  const out: { spec: ClaimSpec; index: number }[] = [];
  paper.file.claims.forEach((spec, index) => {
    if (!spec.forEach) {
      out.push({ spec, index });
      return;
    }
    const ev = new Evaluator(paper, {}, `claims[${index}]`);
    const table = ev.table(spec.forEach.table);
    const rows = spec.forEach.rows ? ev.rowKeys(table.id, spec.forEach.rows) : [undefined];
    const columns = spec.forEach.columns ? ev.columnKeys(table.id, spec.forEach.columns) : [undefined];
    for (const row of rows) {
      for (const column of columns) {
        const printedRow = table.rows.find((r) => r.key === row);
        const columnLabel = table.columns.find((c) => c.key === column)?.printed;
        const label = printedRow ? rowLabel(table, printedRow) : "";
        const { forEach: _, ...rest } = spec;
        const expanded = substitute(rest, row, column);
        expanded.claim = spec.claim.replaceAll("$row", label).replaceAll("$column", columnLabel ?? "");
        out.push({ spec: expanded as ClaimSpec, index });
      }
    }
  });
  return out;
}

function statedOf(ev: Evaluator, spec: ClaimSpec): { value: number | [number, number]; halfUnit: number } {
  const parse = (printed: string) => {
    const n = parsePrinted(printed, spec.exact);
    if (!n) ev.fail(`stated value "${printed}" is not a number`);
    return n;
  };
  if (Array.isArray(spec.stated)) {
    return { value: [parse(spec.stated[0]).value, parse(spec.stated[1]).value], halfUnit: 0 };
  }
  if (typeof spec.stated === "string") {
    const n = parse(spec.stated);
    return { value: n.value, halfUnit: n.halfUnit };
  }
  const { number } = ev.cell(...spec.stated.cell);
  return { value: number.value, halfUnit: spec.exact ? 0 : number.halfUnit };
}

function judge(
  relation: ClaimSpec["relation"],
  stated: number | [number, number],
  halfUnit: number,
  r: Interval,
) {
  const eps = 1e-9;
  if (Array.isArray(stated)) return r.mid >= stated[0] - eps && r.mid <= stated[1] + eps;
  switch (relation) {
    case "approx":
      return r.lo <= stated + halfUnit + eps && r.hi >= stated - halfUnit - eps;
    case "eq":
      return Math.abs(r.mid - stated) <= eps;
    case "gt":
      return r.mid > stated + eps;
    case "ge":
      return r.mid >= stated - eps;
    case "lt":
      return r.mid < stated - eps;
    case "le":
      return r.mid <= stated + eps;
    case "between":
      return false;
  }
}

/** Recomputes every claim of `paper`; `facts` supplies numbers computed from full data sets. */
export function checkClaims(paper: Paper, facts: DataFacts = {}): ClaimResult[] {
  return expandClaims(paper).map(({ spec, index }) => {
    const ev = new Evaluator(paper, facts, `claims[${index}]`);
    const stated = statedOf(ev, spec);
    if (spec.relation === "between" && !Array.isArray(stated.value)) {
      ev.fail(`"between" needs a [low, high] range`);
    }
    const r = ev.eval(spec.expr);
    const printed = Array.isArray(spec.stated)
      ? `${spec.stated[0]}–${spec.stated[1]}`
      : typeof spec.stated === "string"
      ? spec.stated
      : ev.cell(...spec.stated.cell).printed;
    const base = {
      paper: paper.file.paper,
      where: spec.where,
      claim: spec.claim,
      relation: spec.relation,
      stated_printed: printed,
    };
    const stated_ = Array.isArray(stated.value)
      ? stated.value.map(tidy) as [number, number]
      : tidy(stated.value);
    if (!r) {
      const missing = "data" in spec.expr ? spec.expr.data[0] : "a data set";
      return {
        ...base,
        stated: stated_,
        recomputed: null,
        interval: null,
        holds: null,
        note: `not checked: needs the full ${missing} data (deno task download ${missing})`,
      };
    }
    return {
      ...base,
      stated: stated_,
      recomputed: tidy(r.mid),
      interval: [tidy(r.lo), tidy(r.hi)],
      holds: judge(spec.relation, stated.value, stated.halfUnit, r),
      ...(spec.note ? { note: spec.note } : {}),
    };
  });
}
