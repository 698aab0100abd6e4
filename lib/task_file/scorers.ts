/**
 * The scorers a task file names by `scorer.kind`, each with the metrics it reports and how a sample's stored
 * scores become its row values:
 *
 * - `choice`: the shared choice scorer (the project's extractor; single or multiple answer): accuracy and
 *   extraction failures.
 * - `sequence`: Kendall's τ-b between the key's order and the order read from the answer.
 * - `rouge1`: ROUGE-1 F1 against the reference.
 * - `similarity`: answer–reference cosine, by the embeddings model (`--embed-model`) or, without one, the
 *   labelled offline character TF-IDF.
 * - `judge`: a judge role grades the answer with the file's rubric: a score on a scale (1–5 by default; the
 *   mean over runs and judges, `acceptable` = mean ≥ `pass`), or named fields with allowed values (a verdict
 *   is acceptable when each field named in `acceptable` has one of its listed values; runs and judges vote).
 * - `exact`: the answer (whole, or its last line) equals the answer column, after normalisation.
 * - `regex`: the first capture of the pattern's last match in the answer equals the answer column.
 * @module
 */
import { z } from "zod";
import type { ChatMessage } from "../core/chat.ts";
import type { StoredScore } from "../core/records.ts";
import type { MetricDisplay } from "../core/report_spec.ts";
import type { Sample } from "../core/sample.ts";
import type { RoleSpec, ScoreContext, ScoreInput, Scorer, ScoreValue } from "../core/task.ts";
import { type JudgeScorer, judgeScorer } from "../judges/judge_scorer.ts";
import { judgedRepeats, judgedValue } from "../judges/jury.ts";
import { scoreJudgeScorer } from "../judges/score_verdict.ts";
import { choiceScorer } from "../metrics/choice/scorer.ts";
import { rouge1 } from "../metrics/rouge.ts";
import { extractOrder, orderTau } from "../metrics/sequence.ts";
import { CharTfidf, cosine } from "../metrics/similarity.ts";
import { afterReasoning } from "../text/reasoning.ts";
import type { ScorerDeclaration } from "./schema.ts";
import { render } from "./templates.ts";

/** Similarity method label of the offline fallback. */
export const OFFLINE_SIMILARITY =
  "offline:char-tfidf (character 1-2-gram TF-IDF cosine; lexical, not semantic)";

/** A scorer of the registry with what it reports. */
export interface ScorerEntry {
  /** The scorer the pipeline runs. */
  scorer: Scorer;
  /** Metrics it reports, the primary first. */
  metrics: readonly MetricDisplay[];
  /** A sample's metric values from its stored scores of this scorer (`null`: does not count). */
  values(scores: readonly StoredScore[], judgeRuns: number): Record<string, number | null>;
  /** A judged mean's value per judge run (their mean is the value), when the judge ran at least twice. */
  repeats?(scores: readonly StoredScore[], judgeRuns: number): Record<string, number[]> | undefined;
  /** How its metrics are computed, for the summary's notes. */
  notes: readonly string[];
  /** Optional roles the task calls beyond its scorer's (the embeddings model of `similarity`). */
  roles?: readonly RoleSpec[];
}

/** Returns one stored score of a metric computed without a model. */
function scored(value: number, detail: Record<string, unknown>, failed?: boolean): ScoreValue[] {
  return [{
    judge: null,
    run: 1,
    value,
    values: failed === undefined ? null : { extraction_failure: failed ? 1 : 0 },
    valid: true,
    reason: null,
    callKey: null,
    detail,
  }];
}

/** Returns the first valid score's value and extraction failure (`null`s when unscored). */
function plainValues(scores: readonly StoredScore[]): { value: number | null; failed: number | null } {
  const score = scores.find((s) => s.valid);
  if (!score) return { value: null, failed: null };
  const failed = score.values?.extraction_failure;
  return { value: score.value, failed: typeof failed === "number" ? failed : null };
}

/** Returns `text` normalised for exact comparison: NFKC, lower case, spaces collapsed, outer quotes and end punctuation off. */
export function normalizeAnswer(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim()
    .replace(/^["'“‘「]+|["'”’」]+$/g, "").replace(/[.。!！?？;；,，:：]+$/u, "").trim();
}

/** Returns the key of a sample for `exact` and `regex`: its answer column. */
function keyOf(sample: Sample): string {
  return String((sample.extra.values as Record<string, string>).answer ?? "");
}

function choiceEntry(): ScorerEntry {
  return {
    scorer: choiceScorer(),
    metrics: [
      { name: "accuracy", label: "accuracy", percent: true, proportion: true },
      { name: "extraction_failure", label: "extraction failures", percent: true, proportion: true },
    ],
    values: (scores) => {
      const { value, failed } = plainValues(scores);
      return { accuracy: value, extraction_failure: failed };
    },
    notes: [
      "accuracy = share of items whose answer names exactly the key's option letter(s), read by the project's choice extractor",
      "extraction_failure = share of answers no option could be read from (scored as wrong)",
    ],
  };
}

function sequenceEntry(): ScorerEntry {
  return {
    scorer: {
      name: "sequence",
      roles: [],
      score({ sample, answer }: ScoreInput): Promise<ScoreValue[]> {
        const options = sample.extra.options as Record<string, string>;
        const key = sample.extra.answer as string[];
        const got = extractOrder(answer, Object.keys(options), options);
        return Promise.resolve(
          scored(orderTau(key, got.order), { extracted: got.order, method: got.method }, got.order === null),
        );
      },
    },
    metrics: [
      { name: "kendall_tau", label: "Kendall's τ-b", percent: false },
      { name: "extraction_failure", label: "extraction failures", percent: true, proportion: true },
    ],
    values: (scores) => {
      const { value, failed } = plainValues(scores);
      return { kendall_tau: value, extraction_failure: failed };
    },
    notes: [
      "kendall_tau = Kendall's tau-b between the key's order and the order read from the answer (0 when none)",
    ],
  };
}

function rougeEntry(): ScorerEntry {
  return {
    scorer: {
      name: "rouge1",
      roles: [],
      score({ sample, answer }: ScoreInput): Promise<ScoreValue[]> {
        const r = rouge1(afterReasoning(answer), sample.reference ?? "");
        return Promise.resolve(scored(r.f1, { precision: r.precision, recall: r.recall }));
      },
    },
    metrics: [{ name: "rouge1", label: "ROUGE-1 F1", percent: false }],
    values: (scores) => ({ rouge1: plainValues(scores).value }),
    notes: ["rouge1 = ROUGE-1 F1 of the answer against the reference answer"],
  };
}

function similarityEntry(): ScorerEntry {
  const tfidf = new CharTfidf(2);
  return {
    scorer: {
      name: "similarity",
      roles: [],
      prepare(samples: readonly Sample[]) {
        tfidf.fit(samples.filter((s) => s.reference).map((s) => s.reference!));
      },
      async score({ sample, answer }: ScoreInput, ctx: ScoreContext): Promise<ScoreValue[]> {
        const reference = sample.reference ?? "";
        const text = afterReasoning(answer);
        if (ctx.has("embed")) {
          const [a, b] = await ctx.embed([text, reference]);
          return scored(cosine(a, b), { similarity_method: `embeddings:${ctx.members("embed")[0].label}` });
        }
        return scored(tfidf.similarity(text, reference), { similarity_method: OFFLINE_SIMILARITY });
      },
    },
    metrics: [{ name: "similarity", label: "similarity", percent: false }],
    values: (scores) => ({ similarity: plainValues(scores).value }),
    notes: [
      `similarity = cosine of answer and reference: embeddings with --embed-model, else ${OFFLINE_SIMILARITY}`,
    ],
    roles: [{
      name: "embed",
      description: "embeddings model of the similarity scorer (default: offline character TF-IDF)",
      required: false,
    }],
  };
}

function exactEntry(): ScorerEntry {
  return {
    scorer: {
      name: "exact",
      roles: [],
      score({ sample, answer }: ScoreInput): Promise<ScoreValue[]> {
        const key = normalizeAnswer(keyOf(sample));
        const text = afterReasoning(answer);
        const last = text.trim().split("\n").filter((l) => l.trim()).at(-1) ?? "";
        const ok = normalizeAnswer(text) === key || normalizeAnswer(last) === key;
        return Promise.resolve(scored(ok ? 1 : 0, { key }));
      },
    },
    metrics: [{ name: "exact_match", label: "exact match", percent: true, proportion: true }],
    values: (scores) => ({ exact_match: plainValues(scores).value }),
    notes: [
      "exact_match = share of answers equal to the key (whole answer or its last line; case, spaces, quotes and end punctuation ignored)",
    ],
  };
}

function regexEntry(pattern: string): ScorerEntry {
  return {
    scorer: {
      name: "regex",
      roles: [],
      templates: { pattern },
      score({ sample, answer }: ScoreInput): Promise<ScoreValue[]> {
        const matches = [...afterReasoning(answer).matchAll(new RegExp(pattern, "gu"))];
        const captured = matches.at(-1)?.[1];
        if (captured === undefined) return Promise.resolve(scored(0, { extracted: null }, true));
        const ok = normalizeAnswer(captured) === normalizeAnswer(keyOf(sample));
        return Promise.resolve(scored(ok ? 1 : 0, { extracted: captured }, false));
      },
    },
    metrics: [
      { name: "match", label: "match", percent: true, proportion: true },
      { name: "extraction_failure", label: "extraction failures", percent: true, proportion: true },
    ],
    values: (scores) => {
      const { value, failed } = plainValues(scores);
      return { match: value, extraction_failure: failed };
    },
    notes: [
      `match = share of answers whose last match of /${pattern}/ captures the key (normalised); no match = extraction failure, scored as wrong`,
    ],
  };
}

/** Returns the judge's messages: the optional system prompt, then the rubric with the sample and the answer filled in. */
function judgeMessages(rubric: string, system: string | undefined) {
  return (sample: Sample, answer: string): ChatMessage[] => {
    const values = sample.extra.values as Record<string, string>;
    // The loader checked that every record fills the rubric (`{{key}}` needs the answer column).
    const filled = { ...values, ...(values.answer !== undefined ? { key: values.answer } : {}), answer };
    const user = render(rubric, filled, (name) => {
      throw new Error(`judge rubric: sample ${sample.id} has no value for {{${name}}}`);
    });
    return [...(system ? [{ role: "system" as const, content: system }] : []), {
      role: "user",
      content: user,
    }];
  };
}

function scoreJudgeEntry(decl: ScorerDeclaration): ScorerEntry {
  const [min, max] = decl.scale ?? [1, 5];
  const templates = { rubric: decl.rubric!, ...(decl.system ? { judge_system: decl.system } : {}) };
  const scorer = scoreJudgeScorer({
    name: "judge",
    prompt: judgeMessages(decl.rubric!, decl.system),
    templates,
    scale: { min, max },
  });
  const pass = decl.pass;
  return {
    scorer,
    metrics: [
      { name: "score", label: `score (${min}-${max})`, percent: false },
      ...(pass !== undefined
        ? [{ name: "acceptable", label: `acceptable (≥ ${pass})`, percent: true, proportion: true }]
        : []),
    ],
    values: (scores, runs) => {
      const value = judgedValue(scores, scorer.spec, runs).value;
      const score = typeof value === "number" ? value : null;
      return {
        score,
        ...(pass !== undefined ? { acceptable: score === null ? null : score >= pass ? 1 : 0 } : {}),
      };
    },
    repeats: (scores, runs) => {
      const perRun = judgedRepeats(scores, scorer.spec, runs);
      return perRun ? { score: perRun } : undefined;
    },
    notes: [
      `score = the judge's ${min}-${max} score by the task's rubric, mean over judge runs (and judges)`,
      ...(pass !== undefined ? [`acceptable = mean score >= ${pass}`] : []),
      "answers without a valid verdict (judge errors) are left out of every rate",
    ],
  };
}

/** Returns an enum schema of `levels` that also accepts case and space/underscore variants. */
function level(levels: readonly string[]) {
  const squash = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");
  return z.preprocess(
    (v) => typeof v === "string" ? (levels.find((l) => squash(l) === squash(v)) ?? v) : v,
    z.enum(levels as [string, ...string[]]),
  );
}

/** Returns the zod schema of a verdict with named fields (and an optional reason). */
export function fieldsVerdictSchema(fields: Readonly<Record<string, readonly string[]>>) {
  const shape: Record<string, z.ZodType> = { reason: z.string().optional() };
  for (const [name, levels] of Object.entries(fields)) shape[name] = level(levels);
  return z.object(shape) as unknown as z.ZodType<Record<string, string>>;
}

function fieldsJudgeEntry(decl: ScorerDeclaration): ScorerEntry {
  const { fields, acceptable } = decl.verdict!;
  const isAcceptable = (v: Readonly<Record<string, unknown>>) =>
    Object.entries(acceptable).every(([field, allowed]) => allowed.includes(String(v[field])));
  const rule = Object.entries(acceptable).map(([f, allowed]) => `${f} ${allowed.join("/")}`).join(" and ");
  const scorer: JudgeScorer<Record<string, string>> = judgeScorer({
    name: "judge",
    prompt: judgeMessages(decl.rubric!, decl.system),
    templates: { rubric: decl.rubric!, ...(decl.system ? { judge_system: decl.system } : {}) },
    verdict: fieldsVerdictSchema(fields),
    expects: `a JSON verdict with ${Object.keys(fields).join(", ")}`,
    value: (v) => (isAcceptable(v) ? 1 : 0),
    values: Object.fromEntries(Object.keys(fields).map((f) => [f, (v: Record<string, string>) => v[f]])),
    reason: (v) => v.reason ?? "",
    reduce: "mode-low",
    jury: "majority-low",
    agreement: "nominal",
  });
  const vote = { reduce: "mode" as const, jury: "majority" as const };
  return {
    scorer,
    metrics: [
      { name: "acceptable", label: "acceptable", percent: true, proportion: true },
      ...Object.entries(fields).flatMap(([f, levels]) =>
        levels.map((l) => ({ name: `${f}:${l}`, label: `${f}: ${l}`, percent: true, proportion: true }))
      ),
    ],
    values: (scores, runs) => {
      const value = judgedValue(scores, scorer.spec, runs).value;
      const out: Record<string, number | null> = { acceptable: typeof value === "number" ? value : null };
      for (const [f, levels] of Object.entries(fields)) {
        const got = judgedValue(scores, vote, runs, (s) => s.values?.[f] ?? null).value;
        for (const l of levels) out[`${f}:${l}`] = got === null || value === null ? null : got === l ? 1 : 0;
      }
      return out;
    },
    notes: [
      `acceptable = ${rule}; each verdict votes, runs then judges by majority, a tie is not acceptable`,
      "field shares: the most frequent value over runs, then judges (no value on a tie)",
      "answers without a valid verdict (judge errors) are left out of every rate",
    ],
  };
}

/** Returns the scorer of a declaration from the registry. */
export function scorerEntry(decl: ScorerDeclaration): ScorerEntry {
  switch (decl.kind) {
    case "choice":
      return choiceEntry();
    case "sequence":
      return sequenceEntry();
    case "rouge1":
      return rougeEntry();
    case "similarity":
      return similarityEntry();
    case "exact":
      return exactEntry();
    case "regex":
      return regexEntry(decl.pattern!);
    case "judge":
      return decl.verdict ? fieldsJudgeEntry(decl) : scoreJudgeEntry(decl);
  }
}
