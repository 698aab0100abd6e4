import { assertEquals, assertStringIncludes } from "@std/assert";
import { formatEstimate, latexEscape, toCsv, toLatex, toMarkdown } from "../lib/report/tables.ts";
import { type Table } from "../lib/core/report_spec.ts";
import { parseCsv } from "../lib/core/csv.ts";

const table: Table = {
  title: "Results 50% & more",
  columns: ["group", "n", "rate (%)"],
  rows: [["a|b", 3, "66.67 [33.33, 100.00]"], ['say "hi", ok', 1, null]],
  notes: ["CI by bootstrap"],
};

Deno.test("Markdown escapes pipes and right-aligns numeric columns", () => {
  const md = toMarkdown(table);
  assertStringIncludes(md, "| a\\|b | 3 | 66.67 [33.33, 100.00] |");
  assertStringIncludes(md, "| --- | ---: | ---: |");
  assertStringIncludes(md, "- CI by bootstrap");
});

Deno.test("CSV round-trips through the CSV reader", () => {
  const rows = parseCsv(toCsv(table)).map((r) => r.fields);
  assertEquals(rows, [["group", "n", "rate (%)"], ["a|b", "3", "66.67 [33.33, 100.00]"], [
    'say "hi", ok',
    "1",
    "",
  ]]);
});

Deno.test("LaTeX uses booktabs and escapes specials", () => {
  const tex = toLatex(table, "tab:x");
  for (
    const part of [
      "\\toprule",
      "\\midrule",
      "\\bottomrule",
      "\\caption{Results 50\\% \\& more}",
      "\\label{tab:x}",
    ]
  ) {
    assertStringIncludes(tex, part);
  }
  assertEquals(latexEscape("a_b#c~"), "a\\_b\\#c\\textasciitilde{}");
});

Deno.test("estimates format as value [lo, hi], percent when asked", () => {
  assertEquals(formatEstimate({ value: 0.5, ci95: [0.25, 0.75], n: 4 }, true), "50.00 [25.00, 75.00]");
  assertEquals(formatEstimate({ value: 4.25, ci95: [4, 4.5], n: 4 }, false), "4.25 [4.00, 4.50]");
  assertEquals(formatEstimate({ value: null, ci95: null, n: 0 }, true), "–");
});
