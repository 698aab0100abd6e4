/**
 * Agreement between raters — judges and humans — field by field, pair by pair: percent agreement (Wilson 95%
 * CI), Cohen's κ (nominal fields) and quadratic-weighted κ (ordinal fields), each κ with a seeded paired
 * bootstrap 95% CI over the samples both raters rated. Which raters and fields exist is the task's to say.
 * @module
 */
import type { NamedValue } from "../core/records.ts";
import type { RaterAgreement } from "../core/summary.ts";
import { kappaWithCi, pairAgreement } from "../stats/agreement.ts";

/** A field rated by every rater. */
export interface RatedField {
  /** Field name, e.g. `correctness`. */
  name: string;
  /** Its categories; for ordinal fields in order. */
  levels: readonly string[];
  /** `true` when the order of `levels` means something (adds quadratic-weighted κ). */
  ordinal: boolean;
}

/** A rater: a label, its kind, and its value of each field per sample id. */
export interface Rater {
  /** Label, e.g. a judge model or `physician-1`. */
  label: string;
  /** `judge` or `human`. */
  kind: "judge" | "human";
  /** Values by sample id. */
  values: ReadonlyMap<string, Readonly<Record<string, NamedValue>>>;
}

/**
 * Returns the agreement of every pair of raters (judges with each human, then humans with each other; judges
 * with each other are the jury report's) on every field, over the samples both rated.
 */
export function raterAgreement(
  raters: readonly Rater[],
  fields: readonly RatedField[],
  seed: string,
): RaterAgreement[] {
  const judges = raters.filter((r) => r.kind === "judge");
  const humans = raters.filter((r) => r.kind === "human");
  const pairs: [Rater, Rater][] = [
    ...judges.flatMap((j) => humans.map((h) => [j, h] as [Rater, Rater])),
    ...humans.flatMap((a, i) => humans.slice(i + 1).map((b) => [a, b] as [Rater, Rater])),
  ];
  const out: RaterAgreement[] = [];
  for (const [a, b] of pairs) {
    const ids = [...a.values.keys()].filter((id) => b.values.has(id)).sort();
    for (const field of fields) {
      const x: string[] = [], y: string[] = [];
      for (const id of ids) {
        const u = a.values.get(id)![field.name], v = b.values.get(id)![field.name];
        if (u === null || u === undefined || v === null || v === undefined) continue;
        x.push(String(u));
        y.push(String(v));
      }
      const where = `${seed}:${a.label}:${b.label}:${field.name}`;
      out.push({
        field: field.name,
        level: field.ordinal ? "ordinal" : "nominal",
        a: a.label,
        b: b.label,
        kind: a.kind === "judge" ? "judge-human" : "human-human",
        percent: pairAgreement(x, y),
        kappa: kappaWithCi(x, y, { seed: `${where}:kappa` }),
        weighted_kappa: field.ordinal
          ? kappaWithCi(x, y, { levels: field.levels, weights: "quadratic", seed: `${where}:qwk` })
          : null,
      });
    }
  }
  return out;
}
