/**
 * What the `reproduce_<paper>` notebooks show, in three calls: the paper's tables as Markdown, its claim checks
 * as Markdown, and its figures rendered to SVG text.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";
import { FigureRenderer, type FigureSpec } from "../report/figures.ts";
import { toMarkdown } from "../report/tables.ts";
import { checkClaims, type DataFacts } from "./claims.ts";
import { claimsMarkdown } from "./claims_report.ts";
import { loadPapers, type Paper } from "./paper.ts";
import { paperTableFigures } from "./paper_figures.ts";
import { paperTable } from "./paper_tables.ts";

/** Returns the paper with id `id` from `data/papers/`, or throws listing the ids. */
export async function paperById(id: string): Promise<Paper> {
  const papers = await loadPapers();
  const paper = papers.find((p) => p.file.paper === id);
  if (!paper) throw new Error(`no paper "${id}"; papers: ${papers.map((p) => p.file.paper).join(", ")}`);
  return paper;
}

/** Returns every table of `paper`, as printed, as one Markdown string. */
export function paperTablesMarkdown(paper: Paper): string {
  return paper.file.tables.map((t) => toMarkdown(paperTable(paper, t))).join("\n");
}

/** Returns the claim checks of `paper` as Markdown (`facts` from full data sets, when available). */
export function paperClaimsMarkdown(paper: Paper, facts: DataFacts = {}): string {
  return claimsMarkdown(checkClaims(paper, facts), { [paper.file.paper]: paper.file.title });
}

/** Renders every figure of `paper` to SVG in `dir` (a temporary folder by default); returns SVG text by name. */
export async function paperFiguresSvg(paper: Paper, dir?: string): Promise<Record<string, string>> {
  const out = dir ?? await Deno.makeTempDir({ prefix: `medeval-${paper.file.paper}-` });
  const figures: Record<string, FigureSpec> = Object.assign(
    {},
    ...paper.file.tables.map((t) => paperTableFigures(paper, t)),
  );
  const svgs: Record<string, string> = {};
  const renderer = await FigureRenderer.launch();
  try {
    for (const [name, spec] of Object.entries(figures)) {
      const [path] = await renderer.render(out, name, spec as Parameters<FigureRenderer["render"]>[2], [
        "svg",
      ]);
      svgs[name] = await readTextStrict(path);
    }
  } finally {
    await renderer.close();
  }
  return svgs;
}
