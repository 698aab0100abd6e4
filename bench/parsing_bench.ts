/**
 * Reading model and judge replies at scale: the choice extractor over the written reply corpora and the judge
 * score reader over the judge-reply corpus, each repeated to about 33,000 replies (CliMedBench's size).
 */
import { parseJudgeReply } from "../lib/judges/parse_score.ts";
import { extractChoice } from "../lib/metrics/choice/extract.ts";
import { readCorpus } from "../tests/corpus.ts";

const choices = await readCorpus<{ reply: string; labels?: string; options?: Record<string, string> }>(
  "climedbench",
  "choice_replies",
);
const judged = await readCorpus<{ reply: string; min: number; max: number }>("", "judge_replies");
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
