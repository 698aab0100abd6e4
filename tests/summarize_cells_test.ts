/**
 * `summarize` reads each metric's values once and picks every group's by row index: each cell must still be
 * exactly what its definition gives, `estimateMetric` over the group's rows with the design decided from all
 * rows, whatever the rows hold (values missing or null, clusters shared or not, judge repeats).
 * @module
 */
import { assertEquals } from "@std/assert";
import type { SampleRow } from "../lib/core/summary.ts";
import { estimateMetric, metricDesign, summarize } from "../lib/report/summary.ts";
import { mulberry32 } from "../lib/stats/rng.ts";

const METRICS = ["rate", "mean", "judged"];
const FIELDS = ["group", "parity"];

/** Seeded rows of every shape a summary meets. */
function randomRows(random: () => number, n: number): SampleRow[] {
  return Array.from({ length: n }, (_, i) => {
    const values: SampleRow["values"] = {};
    const repeats: Record<string, number[]> = {};
    for (const metric of METRICS) {
      if (random() < 0.1) continue; // absent, as null
      if (random() < 0.15) {
        values[metric] = null;
        continue;
      }
      values[metric] = metric === "rate" ? (random() < 0.4 ? 1 : 0) : Math.round(random() * 50) / 10;
      if (metric === "judged" && random() < 0.5) {
        repeats[metric] = [values[metric]!, Math.round(random() * 5)];
      }
    }
    const group = random() < 0.1 ? null : ["a", "b", "c", "d"][Math.floor(random() * 4)];
    return {
      id: `s${i}`,
      fields: { group, parity: i % 2 === 0 ? "even" : "odd" },
      values,
      ...(Object.keys(repeats).length ? { repeats } : {}),
      ...(random() < 0.6 ? { cluster: `case${Math.floor(random() * (n / 3))}` } : {}),
    };
  });
}

Deno.test("every summary cell is estimateMetric over its group's rows, with the design of all rows", () => {
  const random = mulberry32(20261207);
  for (let trial = 0; trial < 60; trial++) {
    const rows = randomRows(random, 1 + Math.floor(random() * 80));
    const clusters = trial % 2 === 0 ? { name: "case", unit: "case" } : undefined;
    const options = { seed: `t${trial}`, proportions: ["rate"], clusters, order: { group: ["c", "a"] } };
    const core = summarize(rows, METRICS, FIELDS, options);
    for (const metric of METRICS) {
      const design = metricDesign(rows, metric, options);
      const overall = estimateMetric(rows, metric, design, `t${trial}:all:${metric}`);
      assertEquals(core.metrics[metric], { value: overall.value, ci95: overall.ci95, n: overall.n });
      for (const field of FIELDS) {
        for (const [key, cell] of Object.entries(core.groups[field])) {
          const members = rows.filter((r) => r.fields[field] !== null && String(r.fields[field]) === key);
          const chosen = estimateMetric(members, metric, design, `t${trial}:${field}=${key}:${metric}`);
          assertEquals(
            cell[metric],
            { value: chosen.value, ci95: chosen.ci95, n: chosen.n },
            `${field}=${key}`,
          );
        }
      }
    }
    const keys = Object.keys(core.groups.group);
    const present = (k: string) => rows.some((r) => r.fields.group === k);
    const firstSeen = [...new Set(rows.map((r) => r.fields.group).filter((g) => g !== null))] as string[];
    assertEquals(keys, [...["c", "a"].filter(present), ...firstSeen.filter((k) => k !== "c" && k !== "a")]);
  }
});
