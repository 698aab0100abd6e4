/**
 * A scripted MedJudge for the fake server, and the same script as plain functions so tests can recompute
 * PerMedCQA's tables independently of the pipeline. The judge reads the fake model's tag (`Fake answer
 * <8 hex>`) after the model-answer heading, the judge's model name, and the run/attempt from the seed (run r,
 * attempt a → seed r-1 + 1000(a-1)), and answers with {@linkcode plannedMedVerdict}.
 * @module
 */
import { sha256Hex } from "../lib/core/hash.ts";
import { MODEL_ANSWER_HEADING } from "../lib/benchmarks/permedcqa/prompts.ts";
import { CLINICAL_IMPACT, CONFIDENCE, CORRECTNESS, COVERAGE } from "../lib/benchmarks/permedcqa/scorer.ts";
import { defaultFakeReply, type FakeChatBody } from "./fake_server.ts";

/** The scripted categories of one judging. */
export interface PlannedVerdict {
  correctness: string;
  coverage: string;
  clinical_impact: string;
  judge_confidence: string;
}

/** Returns what `judge` answers about the answer tagged `tag` in run `run`, attempt `attempt` (`null` = unreadable). */
export function plannedMedVerdict(
  tag: string,
  judge: string,
  run: number,
  attempt: number,
): PlannedVerdict | null {
  const h = parseInt(sha256Hex(`${tag}:${judge}`).slice(0, 8), 16);
  if (h % 19 === 0) return null; // this judge never gives a valid verdict on this answer
  if ((h + run) % 7 === 0 && attempt === 1) return null; // unreadable once, valid when asked again
  const c = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3][(h + run) % 10];
  return {
    correctness: CORRECTNESS[c],
    coverage: COVERAGE[(h >>> 4) % 4],
    clinical_impact: CLINICAL_IMPACT[Math.min(3, c + ((h >>> 8) % 2))],
    judge_confidence: CONFIDENCE[(h >>> 12) % 3],
  };
}

/** Returns the verdict the pipeline should store for a judge and run (up to 3 attempts), or `null`. */
export function plannedMedScore(
  tag: string,
  judge: string,
  run: number,
  maxAttempts = 3,
): PlannedVerdict | null {
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const v = plannedMedVerdict(tag, judge, run, attempt);
    if (v !== null) return v;
  }
  return null;
}

/** Returns the tag of a fake answer (the first `Fake answer <tag>` in it). */
export function answerTag(answer: string): string | undefined {
  return answer.match(/Fake answer ([0-9a-f]{8})/)?.[1];
}

/** Reply function for the fake server: MedJudge prompts by script, everything else by default. */
export function medJudgeReply(body: FakeChatBody): string {
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  const at = user.indexOf(MODEL_ANSWER_HEADING);
  if (at < 0) return defaultFakeReply(body);
  const tag = answerTag(user.slice(at));
  if (!tag) return "no tag";
  const seed = body.seed ?? 0;
  const run = (seed % 1000) + 1;
  const attempt = Math.floor(seed / 1000) + 1;
  const v = plannedMedVerdict(tag, body.model, run, attempt);
  if (v === null) return JSON.stringify({ Brief_analysis: "unsure", Correctness: "Maybe" });
  const verdict = {
    Brief_analysis: `scripted verdict for ${tag}`,
    Key_missing_facts: ["مصرف دارو"],
    Key_extra_facts: [],
    Correctness: run === 2 ? v.correctness.replace("_", " ").toLowerCase() : v.correctness,
    Coverage: v.coverage,
    Clinical_impact: v.clinical_impact,
    Judge_confidence: v.judge_confidence,
  };
  // Run 2 reasons in prose first and fences its JSON, as chain-of-thought judges do.
  return run === 2
    ? `The model answer leaves out a fact.\n\`\`\`json\n${JSON.stringify(verdict)}\n\`\`\``
    : JSON.stringify(verdict);
}
