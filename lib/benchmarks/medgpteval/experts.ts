/**
 * Expert scores for MedGPTEval, imported from CSV (`item,rater,indicator,score`) as the `human:experts` scorer:
 * an item id names a dialogue (rated on its last round, with the contextual indicators) or a case report.
 * Several experts' ratings are summed per rating (veto applied), then averaged; their agreement is reported
 * as Krippendorff's α per indicator (ordinal, bootstrap CI) and ICC(2,k) of the totals, and, when a judge
 * scored the same items, the judge's totals against the experts' mean totals (α, interval).
 * @module
 */
import type { Estimate } from "../../core/summary.ts";
import type { RatingSpec, RunView } from "../../core/task.ts";
import { alphaWithCi, iccTwoWayRandom } from "../../stats/agreement.ts";
import { BENCHMARK, itemOf } from "./load.ts";
import { INDICATORS, indicatorsFor, type ItemKind, rateItem, type RatingTotals } from "./rubric.ts";

/** The experts' rating scorer. */
export const EXPERT_SCORER = "human:experts";

/** Returns the kind of item a MedGPTEval sample id belongs to (`medgpteval:ID:ROUND` is a dialogue round). */
export function kindOfId(sampleId: string): ItemKind {
  return sampleId.split(":").length === 3 ? "dialogue" : "case";
}

/** What experts rate: every indicator (0..max); contextual ones only for dialogues. */
export const EXPERT_RATING_SPEC: RatingSpec = {
  description: "clinical experts' scores of each indicator of the MedGPTEval rubric, per item and rater",
  fields: INDICATORS.map((i) => ({ name: i.name, min: 0, max: i.max, integer: true })),
  resolve(id, sampleIds) {
    // Dialogue rounds only (`medgpteval:ID:N`), not robustness variants (`medgpteval:ID:1~A01`).
    const round = new RegExp(`^${RegExp.escape(`${BENCHMARK}:${id}:`)}\\d+$`);
    const rounds = [...sampleIds].filter((s) => round.test(s));
    if (rounds.length) return rounds.sort((a, b) => Number(a.split(":")[2]) - Number(b.split(":")[2])).at(-1);
    return `${BENCHMARK}:${id}`;
  },
  fieldsOf: (sampleId) => indicatorsFor(kindOfId(sampleId)).map((i) => i.name),
};

/** Each expert's rating totals of each scored item: item sample id → rater → totals. */
export function expertTotals(view: RunView): Map<string, Map<string, RatingTotals>> {
  const out = new Map<string, Map<string, RatingTotals>>();
  for (const sample of view.samples) {
    const { kind, scored } = itemOf(sample);
    if (!scored) continue;
    for (const score of view.scores.get(sample.id) ?? []) {
      if (score.scorer !== EXPERT_SCORER || !score.valid || !score.values) continue;
      const values = Object.fromEntries(Object.entries(score.values).map(([k, v]) => [k, Number(v)]));
      if (!out.has(sample.id)) out.set(sample.id, new Map());
      out.get(sample.id)!.set(score.judge ?? "", rateItem(values, kind));
    }
  }
  return out;
}

/** The experts' agreement, from their ratings per item: α per indicator, ICC(2,k) of totals (items all rated). */
export function expertAgreement(
  totals: ReadonlyMap<string, ReadonlyMap<string, RatingTotals>>,
  seed: string,
): Record<string, Estimate> {
  const raters = [...new Set([...totals.values()].flatMap((m) => [...m.keys()]))].sort();
  const out: Record<string, Estimate> = {};
  if (raters.length < 2) return out;
  for (const indicator of INDICATORS) {
    const units = [...totals.values()].map((byRater) =>
      raters.map((r) => byRater.get(r)?.scores[indicator.name] ?? null)
    );
    out[`expert_alpha:${indicator.name}`] = alphaWithCi(units, "ordinal", {
      seed: `${seed}:alpha:${indicator.name}`,
    });
  }
  const complete = [...totals.values()].filter((m) => raters.every((r) => m.has(r)));
  if (complete.length >= 2) {
    const icc = iccTwoWayRandom(complete.map((m) => raters.map((r) => m.get(r)!.total)));
    out["expert_icc_k:total"] = {
      value: Number.isFinite(icc.average) ? icc.average : null,
      ci95: null,
      n: complete.length,
    };
  }
  return out;
}
