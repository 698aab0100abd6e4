/**
 * Small HTML helpers for self-contained report pages (no scripts, no server needed).
 * @module
 */
import type { Table } from "../core/report_spec.ts";

/** Escapes `&`, `<`, `>`, `"` and `'` for HTML text and attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Returns the table as an HTML `<table>` with caption and notes; numbers are right-aligned. */
export function tableToHtml(table: Table): string {
  const cell = (value: unknown, tag: "td" | "th") => {
    const text = value === null || value === undefined ? "" : String(value);
    const numeric = /^[-+]?[\d.,]+(%|k)?(\s|$)/.test(text);
    return `<${tag}${numeric ? ' class="num"' : ""}>${escapeHtml(text)}</${tag}>`;
  };
  return [
    "<table>",
    `<caption>${escapeHtml(table.title)}</caption>`,
    `<thead><tr>${table.columns.map((c) => cell(c, "th")).join("")}</tr></thead>`,
    "<tbody>",
    ...table.rows.map((row) => `<tr>${row.map((c) => cell(c, "td")).join("")}</tr>`),
    "</tbody>",
    "</table>",
    ...(table.notes.length
      ? [`<ul class="notes">${table.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>`]
      : []),
  ].join("\n");
}

/** Style sheet of the report pages: readable tables, figures scaled to the page. */
export const REPORT_CSS = `
body { font-family: "Noto Sans", "Noto Sans CJK SC", Arial, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #111; }
h1, h2, h3 { line-height: 1.2; }
table { border-collapse: collapse; margin: 1em 0 0.3em; font-size: 0.9em; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.4em; }
th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; vertical-align: top; }
thead th { border-top: 2px solid #000; border-bottom: 1px solid #000; }
tbody tr:last-child td { border-bottom: 2px solid #000; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.notes { font-size: 0.8em; color: #444; margin-top: 0.2em; }
.links { font-size: 0.85em; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; border: 1px solid #eee; }
.fails { background: #fde8e8; }
.holds { background: #e8f6ec; }
.unchecked { background: #f3f3f3; }
.offline { color: #8a4b00; font-weight: bold; }
nav a { margin-right: 1em; }
`;
