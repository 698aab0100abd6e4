/**
 * Reading model and judge replies at scale: the choice extractor over the written reply corpora and the judge
 * score reader over the judge-reply corpus, each repeated to about 33,000 replies (CliMedBench's size).
 */
import { parseJudgeReply } from "../lib/judges/parse_score.ts";
import { extractChoice } from "../lib/metrics/choice.ts";

const fixtures = new URL("../tests/fixtures/", import.meta.url).pathname;
const readLines = async (path: string) =>
  (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l));
const corpus = async (dir: string, prefix: string) => {
  const rows = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(prefix) && entry.name.endsWith(".jsonl")) {
      rows.push(...await readLines(`${dir}${entry.name}`));
    }
  }
  return rows;
};
const choices = await corpus(`${fixtures}climedbench/`, "choice_replies") as {
  reply: string;
  labels?: string;
  options?: Record<string, string>;
}[];
const judged = await corpus(fixtures, "judge_replies") as { reply: string; min: number; max: number }[];
const repeat = (n: number) => Math.ceil(33_735 / n);

Deno.bench(`choice extraction: ${choices.length} corpus replies x ${repeat(choices.length)}`, () => {
  for (let r = 0; r < repeat(choices.length); r++) {
    for (const c of choices) extractChoice(c.reply, c.labels ? [...c.labels] : undefined, c.options ?? {});
  }
});

Deno.bench(`judge score reading: ${judged.length} corpus replies x ${repeat(judged.length)}`, () => {
  for (let r = 0; r < repeat(judged.length); r++) {
    for (const j of judged) parseJudgeReply(j.reply, j.min, j.max);
  }
});
