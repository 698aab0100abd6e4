/**
 * `reports/index.html`: one self-contained page linking every re-created table and figure, the claim checks and
 * the benchmark runs. Links are relative, so it opens from the file system without a server.
 * @module
 */
import { escapeHtml, REPORT_CSS, tableToHtml } from "../report/html.ts";
import type { ClaimResult } from "./claims.ts";
import { claimCountsLine, formatRecomputed, formatStated, holdsMark } from "./claims_report.ts";
import type { PaperOutputs, WrittenTable } from "./write_paper.ts";

/** A benchmark pipeline as shown on the page. */
export interface RunSection {
  /** Benchmark name. */
  benchmark: string;
  /** Title. */
  title: string;
  /** Paragraphs (plain text) describing data, models and labels. */
  notes: string[];
  /** Tables written. */
  tables: WrittenTable[];
  /** Figure names and directory relative to the root. */
  figures: { dir: string; names: string[] };
  /** Further files of the benchmark (its model comparison), each a label and a path relative to reports/. */
  links?: { label: string; href: string }[];
}

/** Everything the page shows. */
export interface IndexContent {
  /** Paper outputs in order. */
  papers: PaperOutputs[];
  /** All checked claims. */
  claims: ClaimResult[];
  /** Benchmark runs. */
  runs: RunSection[];
  /** Provenance line: command and code version. */
  producedBy: string;
  /** The runs' viewer (deno task view), relative to reports/, when written. */
  viewer?: string;
}

function links(files: readonly string[]): string {
  // files are relative to the root; the page lives in reports/
  return files.map((f) => `<a href="../${escapeHtml(f)}">${escapeHtml(f.slice(f.lastIndexOf(".") + 1))}</a>`)
    .join(" · ");
}

function tableBlock(written: WrittenTable): string {
  return `${tableToHtml(written.table)}\n<p class="links">${links(written.files)}</p>`;
}

function figureBlock(dir: string, name: string, formats: readonly string[]): string {
  const base = `../${dir}/${name}`;
  const img = formats.includes("svg") ? `<img src="${escapeHtml(base)}.svg" alt="${escapeHtml(name)}">` : "";
  return `<figure>${img}<figcaption class="links">${escapeHtml(name)}: ${
    [...formats, "html"].map((f) => `<a href="${escapeHtml(base)}.${f}">${f}</a>`).join(" · ")
  }</figcaption></figure>`;
}

function claimsTable(results: readonly ClaimResult[]): string {
  const rows = results.map((r) => {
    const cls = r.holds === null ? "unchecked" : r.holds ? "holds" : "fails";
    return `<tr class="${cls}"><td>${escapeHtml(r.where)}</td><td>${
      escapeHtml(r.claim)
    }</td><td class="num">${escapeHtml(formatStated(r))}</td><td class="num">${
      escapeHtml(formatRecomputed(r))
    }</td><td>${holdsMark(r.holds)}</td><td>${escapeHtml(r.note ?? "")}</td></tr>`;
  });
  return [
    "<table><thead><tr><th>where</th><th>claim</th><th>stated</th><th>recomputed</th><th>holds</th><th>note</th></tr></thead><tbody>",
    ...rows,
    "</tbody></table>",
  ].join("\n");
}

/** Returns the HTML of `reports/index.html`; `formats` are the image formats rendered besides HTML. */
export function indexPage(content: IndexContent, formats: readonly string[]): string {
  const parts: string[] = [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><title>medeval — reproduced papers</title>',
    `<style>${REPORT_CSS}</style></head><body>`,
    "<h1>medeval — the papers' tables and figures, re-created</h1>",
    `<p>${escapeHtml(content.producedBy)}</p>`,
    "<nav>",
    ...content.papers.map((p) => `<a href="#${p.paper.file.paper}">${escapeHtml(p.paper.file.short)}</a>`),
    '<a href="#claims">Claims</a><a href="#runs">Benchmark runs</a>',
    ...(content.viewer ? [`<a href="${escapeHtml(content.viewer)}">Viewer</a>`] : []),
    "</nav>",
  ];
  for (const outputs of content.papers) {
    const file = outputs.paper.file;
    const claims = content.claims.filter((c) => c.paper === file.paper);
    parts.push(
      `<h2 id="${file.paper}">${escapeHtml(file.title)}</h2>`,
      `<p>${escapeHtml(file.citation)}. Transcribed from seed <code>${
        escapeHtml(file.seed)
      }</code> into <a href="../data/papers/${file.paper}.json"><code>data/papers/${file.paper}.json</code></a>. ${
        escapeHtml(claimCountsLine(claims))
      } (<a href="#claims-${file.paper}">see below</a>).</p>`,
      ...file.notes.map((n) => `<p class="notes">${escapeHtml(n)}</p>`),
      ...outputs.tables.map(tableBlock),
      ...Object.keys(outputs.figures.figures).map((name) => figureBlock(outputs.figuresDir, name, formats)),
    );
  }
  parts.push(
    '<h2 id="claims">Claims recomputed from the tables</h2>',
    `<p>${
      escapeHtml(claimCountsLine(content.claims))
    }. Full list: <a href="claims.md">claims.md</a> · <a href="claims.json">claims.json</a>. A claim holds (≈) when the stated value and the recomputed value agree within the precision the paper prints.</p>`,
  );
  for (const outputs of content.papers) {
    const claims = content.claims.filter((c) => c.paper === outputs.paper.file.paper);
    if (claims.length === 0) continue;
    parts.push(
      `<h3 id="claims-${outputs.paper.file.paper}">${escapeHtml(outputs.paper.file.short)}</h3>`,
      claimsTable(claims),
    );
  }
  parts.push('<h2 id="runs">Benchmark runs</h2>');
  if (content.viewer) {
    parts.push(
      `<p>Every run's samples, transcripts, judge rationales and comparisons: <a href="${
        escapeHtml(content.viewer)
      }">the viewer</a> (opens from the file system).</p>`,
    );
  }
  for (const run of content.runs) {
    parts.push(
      `<h3>${escapeHtml(run.title)}</h3>`,
      ...run.notes.map((n) => `<p>${escapeHtml(n)}</p>`),
      ...(run.links?.length
        ? [
          `<p class="links">${
            run.links.map((l) => `<a href="${escapeHtml(l.href)}">${escapeHtml(l.label)}</a>`).join(" · ")
          }</p>`,
        ]
        : []),
      ...run.tables.map(tableBlock),
      ...run.figures.names.map((name) => figureBlock(run.figures.dir, name, formats)),
    );
  }
  parts.push("</body></html>");
  return parts.join("\n") + "\n";
}
