/**
 * Figures drawn from transcribed paper tables: grouped or stacked bars, heatmaps and radar charts, using the
 * printed values. Which figures a table gets is declared in its paper file.
 * @module
 */
import { type FigureSpec, PALETTE, paperLayout } from "../report/figures.ts";
import { cellKey, type Paper, rowLabel } from "./paper.ts";
import type { FigureRequest, PaperTable } from "./schema.ts";

/** The numeric block of a table a figure draws: row and column labels and the value matrix (null = no number). */
interface Matrix {
  rows: { key: string; label: string }[];
  columns: { key: string; label: string }[];
  values: (number | null)[][];
}

function matrix(paper: Paper, table: PaperTable, request: FigureRequest): Matrix {
  const cells = paper.cells.get(table.id)!;
  const num = (r: string, c: string) => cells.get(cellKey(r, c))?.number?.value ?? null;
  const rowsWanted = table.rows.filter((r) => !request.rows || request.rows.includes(r.key));
  const colsWanted = table.columns.filter((c) => !request.columns || request.columns.includes(c.key));
  const rows = rowsWanted.filter((r) => colsWanted.some((c) => num(r.key, c.key) !== null));
  const columns = colsWanted.filter((c) => rows.some((r) => num(r.key, c.key) !== null));
  return {
    rows: rows.map((r) => ({ key: r.key, label: rowLabel(table, r) })),
    columns: columns.map((c) => ({ key: c.key, label: c.printed })),
    values: rows.map((r) => columns.map((c) => num(r.key, c.key))),
  };
}

function titleOf(paper: Paper, table: PaperTable): string {
  return `${paper.file.short} ${table.label}: ${table.title}`;
}

function barFigure(m: Matrix, request: FigureRequest, title: string, unit?: string): FigureSpec {
  const seriesRows = request.series === "rows";
  const series = seriesRows ? m.rows : m.columns;
  const categories = seriesRows ? m.columns : m.rows;
  const data = series.map((s, i) => ({
    type: "bar",
    name: s.label,
    x: categories.map((c) => c.label),
    y: categories.map((_, j) => (seriesRows ? m.values[i][j] : m.values[j][i])),
    marker: { color: PALETTE[i % PALETTE.length] },
    hovertemplate: `%{x}: %{y}<extra>${s.label}</extra>`,
  }));
  const many = categories.length * Math.max(1, series.length);
  return {
    data,
    layout: paperLayout({
      title: { text: title, font: { size: 15 } },
      barmode: request.kind === "stacked" ? "stack" : "group",
      yaxis: {
        title: { text: request.valueLabel ?? (unit ? `value (${unit})` : "value") },
        type: request.log ? "log" : "linear",
        gridcolor: "#e5e5e5",
        rangemode: "tozero",
      },
      xaxis: { type: "category", tickangle: categories.length > 6 ? -35 : 0, automargin: true },
      legend: { orientation: "h", y: -0.3 },
      showlegend: series.length > 1,
    }),
    width: Math.min(1600, Math.max(640, 14 * many + 200)),
    height: 520,
  };
}

function heatmapFigure(m: Matrix, request: FigureRequest, title: string): FigureSpec {
  return {
    data: [{
      type: "heatmap",
      x: m.columns.map((c) => c.label),
      y: m.rows.map((r) => r.label),
      z: m.values,
      text: m.values.map((row) => row.map((v) => (v === null ? "" : String(v)))),
      texttemplate: "%{text}",
      colorscale: "Viridis",
      colorbar: { title: { text: request.valueLabel ?? "value", side: "right" } },
      hovertemplate: "%{y} · %{x}: %{z}<extra></extra>",
    }],
    layout: paperLayout({
      title: { text: title, font: { size: 15 } },
      yaxis: { autorange: "reversed", automargin: true, type: "category" },
      xaxis: { side: "bottom", type: "category", automargin: true },
      margin: { l: 120, r: 20, t: 60, b: 60 },
    }),
    width: Math.max(640, 60 * m.columns.length + 260),
    height: Math.max(360, 34 * m.rows.length + 160),
  };
}

function radarFigure(m: Matrix, request: FigureRequest, title: string): FigureSpec {
  const seriesRows = request.series === "rows";
  const series = seriesRows ? m.rows : m.columns;
  const axes = seriesRows ? m.columns : m.rows;
  const data = series.map((s, i) => {
    const r = axes.map((_, j) => (seriesRows ? m.values[i][j] : m.values[j][i]));
    return {
      type: "scatterpolar",
      name: s.label,
      r: [...r, r[0]],
      theta: [...axes.map((a) => a.label), axes[0].label],
      mode: "lines+markers",
      line: { color: PALETTE[i % PALETTE.length], width: 2 },
      marker: { size: 5 },
    };
  });
  return {
    data,
    layout: paperLayout({
      title: { text: title, font: { size: 15 } },
      polar: {
        radialaxis: { angle: 90, gridcolor: "#ddd", rangemode: "tozero" },
        angularaxis: { direction: "clockwise" },
      },
      legend: { orientation: "h", y: -0.12 },
      margin: { l: 80, r: 80, t: 80, b: 80 },
    }),
    width: 720,
    height: 640,
  };
}

/** Returns the figures a table declares, by file name (`<table>_<kind>[_<name>]`). */
export function paperTableFigures(paper: Paper, table: PaperTable): Record<string, FigureSpec> {
  const figures: Record<string, FigureSpec> = {};
  for (const request of table.figures) {
    const m = matrix(paper, table, request);
    if (m.rows.length === 0 || m.columns.length === 0) continue;
    const name = `${table.id}_${request.kind}${request.name ? `_${request.name}` : ""}`;
    const title = titleOf(paper, table);
    figures[name] = request.kind === "heatmap"
      ? heatmapFigure(m, request, title)
      : request.kind === "radar"
      ? radarFigure(m, request, title)
      : barFigure(m, request, title, table.unit);
  }
  return figures;
}
