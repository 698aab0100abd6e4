/**
 * Writes checked claims as `claims.md` (one table per paper) and `claims.json` (a flat list).
 * @module
 */
import type { ClaimResult } from "./claims.ts";
import { markdownCell } from "../report/tables.ts";

const RELATION: Record<ClaimResult["relation"], string> = {
  approx: "≈",
  eq: "=",
  gt: ">",
  ge: "≥",
  lt: "<",
  le: "≤",
  between: "in",
};

/** Returns `value` with `digits` decimals, dropping a trailing `.0…` only for integers. */
function show(value: number, digits: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

/** Decimals printed in `text` (the most of any number in it). */
function decimals(text: string): number {
  return Math.max(0, ...[...text.matchAll(/\d+\.(\d+)/g)].map((m) => m[1].length));
}

/** Returns the stated side as text: relation and the number as printed (`≈ 69.0`, `> 50`, `in 4–6`). */
export function formatStated(result: ClaimResult): string {
  return `${RELATION[result.relation]} ${result.stated_printed}`;
}

/** Returns the recomputed side as text: value with two more decimals than stated, and its interval. */
export function formatRecomputed(result: ClaimResult): string {
  if (result.recomputed === null) return "–";
  const d = Math.min(6, decimals(result.stated_printed) + 2);
  const [lo, hi] = result.interval!;
  const value = show(result.recomputed, d);
  return lo === hi ? value : `${value} [${show(lo, d)}, ${show(hi, d)}]`;
}

/** Returns `holds` as a mark: ✓, ✗, or – when not checked. */
export function holdsMark(holds: boolean | null): string {
  return holds === null ? "–" : holds ? "✓" : "✗";
}

/** Returns "N claims: x hold, y do not hold, z not checked" for `results`. */
export function claimCountsLine(results: readonly ClaimResult[]): string {
  const count = (holds: boolean | null) => results.filter((r) => r.holds === holds).length;
  return `${results.length} claims: ${count(true)} hold, ${count(false)} do not hold, ${
    count(null)
  } not checked`;
}

/** Returns `claims.md`: method, counts, then one table per paper. */
export function claimsMarkdown(results: readonly ClaimResult[], titles: Record<string, string>): string {
  const esc = markdownCell;
  const lines = [
    "# Claims of the papers, recomputed from their own tables",
    "",
    "Each claim is a number the paper states (in text or as a subtotal) that its printed tables determine.",
    "`stated` is as printed; `recomputed` comes from the transcribed cells (`data/papers/*.json`), with the",
    "interval every unrounded value allows (each printed number ± half a unit of its last digit). `≈` claims hold",
    "when the stated and recomputed intervals overlap; `=` needs exact equality; `>`/`<` compare the recomputed",
    "value with the stated bound. The papers' numbers are not adjusted.",
    "",
    `**${claimCountsLine(results)}.**`,
    "",
  ];
  const papers = [...new Set(results.map((r) => r.paper))];
  for (const paper of papers) {
    const rs = results.filter((r) => r.paper === paper);
    lines.push(
      `## ${titles[paper] ?? paper}`,
      "",
      `${claimCountsLine(rs)}.`,
      "",
      "| where | claim | stated | recomputed | holds | note |",
      "| --- | --- | ---: | ---: | :---: | --- |",
      ...rs.map((r) =>
        `| ${esc(r.where)} | ${esc(r.claim)} | ${formatStated(r)} | ${formatRecomputed(r)} | ${
          holdsMark(r.holds)
        } | ${esc(r.note ?? "")} |`
      ),
      "",
    );
  }
  return lines.join("\n");
}

/** Writes `<dir>/claims.md` and `<dir>/claims.json`; returns their paths. */
export async function writeClaims(
  dir: string,
  results: readonly ClaimResult[],
  titles: Record<string, string>,
): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const md = `${dir}/claims.md`;
  const json = `${dir}/claims.json`;
  await Deno.writeTextFile(md, claimsMarkdown(results, titles));
  await Deno.writeTextFile(json, JSON.stringify(results, null, 2) + "\n");
  return [md, json];
}
