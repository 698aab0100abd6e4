/**
 * A scripted judge for the fake server, and the same script as plain arithmetic so tests can recompute the
 * expected results independently of the pipeline.
 *
 * The fake model answers `Fake answer <tag> ...` where tag = first 8 hex of SHA-256(question). The fake judge
 * reads that tag from the judge prompt and the run/attempt from the request seed (run r, attempt a →
 * seed r-1 + 1000(a-1)), and answers with {@linkcode plannedVerdict}.
 * @module
 */
import { sha256Hex } from "../lib/core/hash.ts";
import { defaultFakeReply, type FakeChatBody } from "./fake_server.ts";

/** Returns the tag the fake model puts in its answer to `question`. */
export function questionTag(question: string): string {
  return sha256Hex(question).slice(0, 8);
}

/** What the scripted judge answers for a tag, run and attempt: a score, or `null` for an unreadable reply. */
export function plannedVerdict(tag: string, run: number, attempt: number): number | null {
  const h = parseInt(tag, 16);
  if (h % 13 === 0) return null; // this answer always confuses the judge
  if ((h + run) % 11 === 0 && attempt === 1) return null; // unreadable once, fine when asked again
  return [5, 4, 4, 3, 2, 5, 4][(h + 3 * run) % 7];
}

/** Returns the valid score the pipeline should record for a tag and run (up to 3 attempts), or `null`. */
export function plannedScore(tag: string, run: number, maxAttempts = 3): number | null {
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const v = plannedVerdict(tag, run, attempt);
    if (v !== null) return v;
  }
  return null;
}

/** Reply function for the fake server: judges judge prompts by script, answers everything else by default. */
export function scriptedReply(body: FakeChatBody): string {
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  if (!user.includes("### Student's answer")) return defaultFakeReply(body);
  const tag = user.match(/Fake answer ([0-9a-f]{8})/)?.[1];
  if (!tag) return "no tag";
  const seed = body.seed ?? 0;
  const run = (seed % 1000) + 1;
  const attempt = Math.floor(seed / 1000) + 1;
  const score = plannedVerdict(tag, run, attempt);
  if (score === null) return "I am unable to decide on a grade for this answer.";
  return run === 2
    ? `理由：已与参考答案逐项比较。\n评分：[[${score}]]`
    : JSON.stringify({ score, reason: `scripted score for ${tag}` });
}
