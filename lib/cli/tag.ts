/**
 * `deno task tag permedcqa`: labels a user's Persian QA records with ICD-11 categories and question types
 * through a model, as the PerMedCQA paper's tagging step did (lib/benchmarks/permedcqa/tag.ts does the work).
 * @module
 */
import { parseArgs } from "node:util";
import { tagPerMedCqa, tagSummaryText } from "../benchmarks/permedcqa/tag.ts";
import { ConfigError } from "../core/errors.ts";
import { checkNumber, evalOption } from "../pipeline/eval_options.ts";
import { parseColumns } from "../pipeline/plan.ts";
import { requireEnv } from "../pipeline/plan_roles.ts";

/** Usage of `deno task tag`. */
export const TAG_USAGE =
  `  deno task tag permedcqa --model NAME [--base-url URL] [--api-key-env VAR] --data FILE --out DIR
                    [--columns KEY=COL,...] [--concurrency N] [--resume] [--retag] [--limit N] [--quiet]
      (labels each record's ICD-11 category and question type with the model; writes DIR/tagged.jsonl,
       DIR/tag_summary.json and DIR/tag.sqlite; exit 1 when some records stay untagged)`;

/** Parses `--limit` or `--concurrency` with the same checks (integer, at least 1) `eval` applies to them. */
function countFlag(value: string | undefined, flag: "limit" | "concurrency"): number | undefined {
  if (value === undefined) return undefined;
  const n = value.trim() === "" ? NaN : Number(value);
  checkNumber(evalOption(flag)!, n);
  return n;
}

/** `tag`: parses the flags, tags, prints the summary; returns the exit code (1 when records stay untagged). */
export async function tagCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: "string" },
      "base-url": { type: "string" },
      "api-key-env": { type: "string" },
      data: { type: "string" },
      columns: { type: "string" },
      out: { type: "string" },
      concurrency: { type: "string" },
      resume: { type: "boolean" },
      retag: { type: "boolean" },
      limit: { type: "string" },
      quiet: { type: "boolean" },
    },
  });
  if (positionals[0] !== "permedcqa" || positionals.length > 1) {
    const got = positionals.length ? ` (got "${positionals.join(" ")}")` : "";
    throw new ConfigError(`tag: name the benchmark whose labels to assign: permedcqa${got}`);
  }
  if (!values.model) throw new ConfigError("--model is required: the served model that assigns the labels");
  if (!values.data) {
    throw new ConfigError("--data is required: the Persian QA file to tag (JSON array, JSONL or Parquet)");
  }
  if (!values.out) {
    throw new ConfigError(
      "--out is required: the directory for tagged.jsonl, tag_summary.json and tag.sqlite",
    );
  }
  if (values["api-key-env"]) requireEnv("api-key-env", values["api-key-env"]);
  const result = await tagPerMedCqa({
    model: values.model,
    baseUrl: values["base-url"],
    apiKeyEnv: values["api-key-env"],
    data: values.data,
    columns: parseColumns(values.columns),
    out: values.out,
    concurrency: countFlag(values.concurrency, "concurrency"),
    resume: values.resume,
    retag: values.retag,
    limit: countFlag(values.limit, "limit"),
    quiet: values.quiet,
  });
  console.log(tagSummaryText(result));
  return result.summary.failed > 0 ? 1 : 0;
}
