/**
 * Writes a meta-evaluation: `meta.md` (tables), `meta.json` (everything, with every estimate's n and CI) and
 * `calibration_curves.csv` (the isotonic maps, overall and per group of items, one row per point).
 * @module
 */
import { csvText } from "../core/csv.ts";
import { type MetaReport } from "./analyze.ts";
import { metaMarkdown } from "./markdown.ts";

/** Returns the calibration curves of a report as CSV rows (header first). */
export function calibrationCurveRows(report: MetaReport): (string | number | null)[][] {
  const rows: (string | number | null)[][] = [[
    "condition",
    "judge_scorer",
    "human_scorer",
    "field",
    "source",
    "group_field",
    "group",
    "judge_score",
    "calibrated_score",
    "labelled_items",
  ]];
  for (const metric of report.metrics) {
    for (const field of metric.fields) {
      const c = field.calibration;
      if (!c) continue;
      for (const curve of c.curves) {
        for (const p of curve.points) {
          rows.push([
            metric.condition,
            metric.judgeScorer,
            metric.humanScorer,
            field.field.name,
            c.source,
            curve.groupField ?? "all",
            curve.group ?? "all",
            p.judge,
            p.calibrated,
            p.items,
          ]);
        }
      }
    }
  }
  return rows;
}

/** Writes `meta.md`, `meta.json` and `calibration_curves.csv` into `dir` (created if needed); returns the paths. */
export async function writeMeta(report: MetaReport, dir: string): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    [`${dir}/meta.md`, metaMarkdown(report)],
    [`${dir}/meta.json`, JSON.stringify(report, null, 2) + "\n"],
    [`${dir}/calibration_curves.csv`, csvText(calibrationCurveRows(report))],
  ];
  for (const [path, text] of files) await Deno.writeTextFile(path, text);
  return files.map(([path]) => path);
}
