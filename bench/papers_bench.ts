/**
 * `deno task bench`: cost of the paper side of `deno task reproduce` — loading and validating the four paper
 * files, recomputing every claim, and building every paper table and figure spec.
 * @module
 */
import { checkClaims } from "../lib/papers/claims.ts";
import { loadPapers } from "../lib/papers/paper.ts";
import { paperTableFigures } from "../lib/papers/paper_figures.ts";
import { paperTable } from "../lib/papers/paper_tables.ts";
import { toLatex, toMarkdown } from "../lib/report/tables.ts";

const papers = await loadPapers();

Deno.bench("load and validate the four paper files", async () => {
  await loadPapers();
});

Deno.bench("recompute every claim of the four papers", () => {
  for (const paper of papers) checkClaims(paper);
});

Deno.bench("build every paper table (md + tex) and figure spec", () => {
  for (const paper of papers) {
    for (const table of paper.file.tables) {
      const t = paperTable(paper, table);
      toMarkdown(t);
      toLatex(t);
      paperTableFigures(paper, table);
    }
  }
});
