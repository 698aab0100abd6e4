/**
 * Tables as plain data, written as Markdown, CSV and LaTeX (booktabs).
 * @module
 */
import { csvText } from "../core/csv.ts";
import type { Cell, GroupDisplay, MetricDisplay, Table } from "../core/report_spec.ts";
import { type Estimate, type IntervalInfo, type Summary, summaryName } from "../core/summary.ts";
import { RESAMPLES } from "../stats/bootstrap.ts";
import { summaryOutcomesLine } from "./outcomes_note.ts";

/** Returns an estimate as `61.23 [55.10, 67.00]` (scaled by 100 when `percent`), or `–` without data. */
export function formatEstimate(estimate: Estimate | undefined, percent: boolean, digits = 2): string {
  if (!estimate || estimate.value === null) return "–";
  const k = percent ? 100 : 1;
  const f = (v: number) => (v * k).toFixed(digits);
  return estimate.ci95
    ? `${f(estimate.value)} [${f(estimate.ci95[0])}, ${f(estimate.ci95[1])}]`
    : f(estimate.value);
}

function cellText(cell: Cell): string {
  return cell === null ? "" : String(cell);
}

/** Returns `text` safe inside a Markdown table cell (pipes escaped, line breaks as spaces). */
export function markdownCell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** Returns the table as GitHub-flavoured Markdown with its title and notes. */
export function toMarkdown(table: Table): string {
  const esc = markdownCell;
  const lines = [
    `**${table.title}**`,
    "",
    `| ${table.columns.map(esc).join(" | ")} |`,
    `| ${table.columns.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...table.rows.map((row) => `| ${row.map((c) => esc(cellText(c))).join(" | ")} |`),
  ];
  if (table.notes.length) lines.push("", ...table.notes.map((n) => `- ${n}`));
  return lines.join("\n") + "\n";
}

/** Returns the table as CSV (header row, then rows; title and notes are not part of CSV). */
export function toCsv(table: Table): string {
  return csvText([table.columns, ...table.rows]);
}

/** Escapes LaTeX special characters. */
export function latexEscape(text: string): string {
  return text.replace(/[\\{}$&#^_%~]/g, (ch) => {
    if (ch === "\\") return "\\textbackslash{}";
    if (ch === "^") return "\\textasciicircum{}";
    if (ch === "~") return "\\textasciitilde{}";
    return `\\${ch}`;
  });
}

/** Returns the table as a LaTeX `table` with a booktabs `tabular` and the notes as a footnote block. */
export function toLatex(table: Table, label?: string): string {
  const spec = table.columns.map((_, i) => (i === 0 ? "l" : "r")).join("");
  const row = (cells: Cell[]) => cells.map((c) => latexEscape(cellText(c))).join(" & ") + " \\\\";
  const lines = [
    "% requires \\usepackage{booktabs}",
    "\\begin{table}[t]",
    "\\centering",
    `\\caption{${latexEscape(table.title)}}`,
    ...(label ? [`\\label{${label}}`] : []),
    `\\begin{tabular}{${spec}}`,
    "\\toprule",
    row(table.columns),
    "\\midrule",
    ...table.rows.map(row),
    "\\bottomrule",
    "\\end{tabular}",
  ];
  if (table.notes.length) {
    lines.push("\\par\\smallskip\\footnotesize", ...table.notes.map((n) => `${latexEscape(n)}\\\\`));
  }
  lines.push("\\end{table}");
  return lines.join("\n") + "\n";
}

/** Writes `<name>.md`, `<name>.csv` and `<name>.tex` into `dir`; returns the paths. */
export async function writeTable(dir: string, name: string, table: Table): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    [`${dir}/${name}.md`, toMarkdown(table)],
    [`${dir}/${name}.csv`, toCsv(table)],
    [`${dir}/${name}.tex`, toLatex(table, `tab:${name}`)],
  ];
  for (const [path, text] of files) await Deno.writeTextFile(path, text);
  return files.map(([path]) => path);
}

/** Metrics an interval footnote names one by one under each method; the others are counted. */
const NAMED_METRICS = 6;

/**
 * Returns the method of `info` as a footnote names it: a bootstrap of judge repeats with their number, e.g.
 * `two-level bootstrap (items, 3 judge repeats)`, `cluster bootstrap (conversations, 3 judge repeats)`.
 */
function methodText(info: IntervalInfo): string {
  if (info.kind === "judged mean" && info.method.endsWith(", judge repeats)")) {
    return info.method.replace(/, judge repeats\)$/, `, ${info.repeats} judge repeats)`);
  }
  return info.method;
}

/**
 * Returns what `info`'s interval rests on: its n (in clusters when clustered), group methods, and, for a
 * clustered judged mean whose method did not resample its judge repeats (a summary of an earlier version),
 * that they were averaged first.
 */
function restsOn(info: IntervalInfo, clusters: Summary["clustered_by"]): string {
  const n = info.clusters !== undefined && clusters
    ? `${info.n} ${clusters.unit} in ${info.clusters} ${clusters.name}`
    : `n = ${info.n}`;
  const averaged =
    info.kind === "judged mean" && info.clusters !== undefined && !info.method.includes("judge repeats")
      ? [`${info.repeats} judge repeats averaged first`]
      : [];
  const groups = info.group_methods?.length ? [`in some groups ${info.group_methods.join(", ")}`] : [];
  return [n, ...averaged, ...groups].join("; ");
}

/**
 * Returns the metric names with what they rest on, metrics resting on the same written together (in order of
 * first appearance); beyond {@linkcode NAMED_METRICS} metrics, the rest are counted.
 */
function metricList(entries: readonly { name: string; detail: string }[]): string {
  const shown = entries.slice(0, NAMED_METRICS);
  const byDetail = Map.groupBy(shown, (entry) => entry.detail);
  const parts = [...byDetail].map(([detail, same]) => `${same.map((e) => e.name).join(", ")} (${detail})`);
  const more = entries.length - shown.length;
  return parts.join(", ") + (more > 0 ? ` and ${more} more` : "");
}

/**
 * Returns the footnote naming the 95% interval of each metric of `summary` and what it rests on — items, and
 * clusters and judge repeats where they count — e.g. `95% CI: cluster bootstrap (conversations) for usability,
 * op (667 rounds in 223 conversations); cluster bootstrap (conversations, 3 judge repeats) for mean_score (660
 * rounds in 221 conversations); bootstraps: 2000 resamples, seeded`.
 * `undefined` for a summary of an earlier version (without `intervals`).
 */
export function intervalLine(summary: Summary): string | undefined {
  const intervals = summary.intervals;
  if (!intervals || Object.keys(intervals).length === 0) return undefined;
  const byMethod = new Map<string, { name: string; detail: string }[]>();
  for (const [name, info] of Object.entries(intervals)) {
    const method = methodText(info);
    byMethod.set(method, [...(byMethod.get(method) ?? []), {
      name,
      detail: restsOn(info, summary.clustered_by),
    }]);
  }
  const parts = [...byMethod].map(([method, entries]) => `${method} for ${metricList(entries)}`);
  const bootstrapped = [...byMethod.keys()].some((m) => m.includes("bootstrap"));
  return `95% CI: ${parts.join("; ")}${bootstrapped ? `; bootstraps: ${RESAMPLES} resamples, seeded` : ""}`;
}

/**
 * Returns the interval lines of `summaries` as a table setting them side by side prints them: the first's as
 * it is, each other's prefixed with its name when it differs (none for summaries of earlier versions).
 */
export function intervalLines(summaries: readonly Summary[]): string[] {
  const [first, ...others] = summaries;
  const line = first && intervalLine(first);
  return [
    ...(line === undefined ? [] : [line]),
    ...others.flatMap((s) => {
      const own = intervalLine(s);
      return own === undefined || own === line ? [] : [`${summaryName(s)}: ${own}`];
    }),
  ];
}

/**
 * Returns the footnotes every table of `summary` carries: model, judge, the interval of each metric (the CI
 * method of a summary of an earlier version), the summary's notes, and its outcomes line (truncated, refused,
 * empty and failed replies of every role, and how they count) even when every count is zero.
 */
export function summaryNotes(summary: Summary): string[] {
  return [
    `model: ${summary.model}; judge: ${summary.judge ?? "none"}; condition: ${summary.condition}`,
    intervalLine(summary) ?? `values with 95% CI (${summary.ci_method})`,
    ...notesWithOutcomes(summary),
  ];
}

/** Returns the notes of `summary` with its outcomes line last, unless the notes carry it already. */
export function notesWithOutcomes(summary: Summary): string[] {
  const line = summaryOutcomesLine(summary);
  return line === undefined || summary.notes.includes(line) ? summary.notes : [...summary.notes, line];
}

/**
 * Returns the outcomes lines of `summaries` as a table setting them side by side prints them: the first's as
 * it is, each other's prefixed with its name (none for summaries of earlier versions).
 */
export function outcomesLines(summaries: readonly Summary[]): string[] {
  const [first, ...others] = summaries;
  const line = first && summaryOutcomesLine(first);
  return [...(line === undefined ? [] : [line]), ...others.flatMap(namedOutcomesLine)];
}

/** Returns the outcomes line of `summary` prefixed with its name (empty for a summary of an earlier version). */
export function namedOutcomesLine(summary: Summary): string[] {
  const line = summaryOutcomesLine(summary);
  return line === undefined ? [] : [`${summaryName(summary)}: ${line}`];
}

/** Returns `keys` of `field` in the display order (listed keys first, the others as given). */
export function orderedKeys(keys: Iterable<string>, field: string, display?: GroupDisplay): string[] {
  const all = [...new Set(keys)];
  const order = display?.order?.[field] ?? [];
  return [...order.filter((k) => all.includes(k)), ...all.filter((k) => !order.includes(k))];
}

/** Returns the name a table shows for group `key` of `field`. */
export function groupLabel(display: GroupDisplay | undefined, field: string, key: string): string {
  return display?.label?.(field, key) ?? key;
}

/**
 * Returns the footnotes of a table setting several summaries side by side: the first's, then each other's own
 * notes (those the first does not have, such as what an ablation did), its interval line when it differs, and
 * its outcomes line, prefixed with its name.
 */
export function comparisonNotes(summaries: readonly Summary[]): string[] {
  const [first, ...others] = summaries;
  if (!first) return [];
  const base = summaryNotes(first);
  const firstInterval = intervalLine(first);
  return [
    ...base,
    ...others.flatMap((s) => {
      const line = summaryOutcomesLine(s);
      const own = s.notes.filter((n) => !base.includes(n) && n !== line).map((n) =>
        `${summaryName(s)}: ${n}`
      );
      const interval = intervalLine(s);
      const intervals = interval === undefined || interval === firstInterval
        ? []
        : [`${summaryName(s)}: ${interval}`];
      return [...own, ...intervals, ...namedOutcomesLine(s)];
    }),
  ];
}

/** Returns one table per group field of `summary`: group value, n, then each metric with its CI. */
export function groupTables(
  summary: Summary,
  metrics: readonly MetricDisplay[],
  display?: GroupDisplay,
): Record<string, Table> {
  const tables: Record<string, Table> = {};
  for (const [field, groups] of Object.entries(summary.groups)) {
    // A field grouping other metrics (e.g. robustness rates, shown in tables of their own) gets no table here.
    if (!Object.values(groups).some((est) => metrics.some((m) => m.name in est))) continue;
    tables[`by_${field}`] = {
      title: `${summary.benchmark} — ${summary.model}: results by ${field}`,
      columns: [field, "n", ...metrics.map((m) => `${m.label}${m.percent ? " (%)" : ""}`)],
      rows: [
        ...orderedKeys(Object.keys(groups), field, display).map((key) => [key, groups[key]] as const).map((
          [key, est],
        ) => [
          groupLabel(display, field, key),
          est[metrics[0].name]?.n ?? 0,
          ...metrics.map((m) => formatEstimate(est[m.name], m.percent)),
        ]),
        ["all", summary.n, ...metrics.map((m) => formatEstimate(summary.metrics[m.name], m.percent))],
      ],
      notes: summaryNotes(summary),
    };
  }
  return tables;
}
