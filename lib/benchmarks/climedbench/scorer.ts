/**
 * The CliMedBench scorer: one score per answer in the scenario's own metric — accuracy (choice items, by the
 * shared {@linkcode scoreChoice} on the sample's `choices`), Kendall's τ-b (sequencing), ROUGE-1 F1 (KE) or
 * answer–reference similarity (WTD: embeddings cosine, or the labelled offline character n-gram TF-IDF cosine
 * when no `--embed-model` is configured).
 * @module
 */
import type { Sample } from "../../core/sample.ts";
import type { ScoreContext, ScoreInput, Scorer, ScoreValue } from "../../core/task.ts";
import { scoreChoice } from "../../metrics/choice/scorer.ts";
import { rouge1 } from "../../metrics/rouge.ts";
import { extractOrder, orderTau } from "../../metrics/sequence.ts";
import { CharTfidf, cosine } from "../../metrics/similarity.ts";
import { climedExtra } from "./load.ts";
import { scenarioByCode } from "./scenarios.ts";

/** Similarity method label of the offline fallback, written into every score detail and summary note. */
export const OFFLINE_SIMILARITY =
  "offline:char-tfidf (character 1-2-gram TF-IDF cosine; lexical, not semantic)";

/** What a CliMedBench score records besides its value. */
export interface ClimedScoreDetail {
  /** The scenario's metric. */
  metric: string;
  /** Extracted letters (choice) or order (sequencing); `null` when extraction failed; absent for open items. */
  extracted?: string[] | null;
  /** Extraction rule that decided. */
  method?: string;
  /** `true` when no answer could be extracted (choice and sequencing only). */
  extraction_failed?: boolean;
  /** Why a choice reply could not be read: `ambiguous`, `not_an_option` or `no_answer`. */
  failure?: string;
  /** KE: ROUGE-1 precision and recall. */
  precision?: number;
  /** KE: ROUGE-1 recall. */
  recall?: number;
  /** WTD: how similarity was computed (embeddings model, or the offline fallback). */
  similarity_method?: string;
}

function scored(value: number, detail: ClimedScoreDetail, reason: string | null = null): ScoreValue[] {
  return [{ judge: null, run: 1, value, values: null, valid: true, reason, callKey: null, detail }];
}

/** Returns the CliMedBench scorer. */
export function climedScorer(): Scorer {
  const tfidf = new CharTfidf(2);
  return {
    name: "metric",
    roles: [],
    prepare(samples: readonly Sample[]) {
      tfidf.fit(samples.filter((s) => s.fields.scenario === "WTD" && s.reference).map((s) => s.reference!));
    },
    async score({ sample, answer }: ScoreInput, ctx: ScoreContext): Promise<ScoreValue[]> {
      const scenario = scenarioByCode(String(sample.fields.scenario));
      const type = sample.fields.question_type;
      if (type === "single_choice" || type === "multiple_choice") {
        if (!sample.choices) throw new Error(`climedbench: choice item ${sample.id} has no choices`);
        const { value, detail } = scoreChoice(sample.choices, answer);
        return scored(value, detail);
      }
      const extra = climedExtra(sample);
      const labels = Object.keys(extra.options).sort();
      if (type === "sequencing") {
        const got = extractOrder(answer, labels, extra.options);
        return scored(orderTau(extra.answer, got.order), {
          metric: "kendall_tau",
          extracted: got.order,
          method: got.method,
          extraction_failed: got.order === null,
        });
      }
      const reference = sample.reference ?? "";
      if (scenario.metric === "rouge1") {
        const r = rouge1(answer, reference);
        return scored(r.f1, { metric: "rouge1", precision: r.precision, recall: r.recall });
      }
      if (ctx.has("embed")) {
        const [a, b] = await ctx.embed([answer, reference]);
        return scored(cosine(a, b), {
          metric: "similarity",
          similarity_method: `embeddings:${ctx.members("embed")[0].label}`,
        });
      }
      return scored(tfidf.similarity(answer, reference), {
        metric: "similarity",
        similarity_method: OFFLINE_SIMILARITY,
      });
    },
  };
}
