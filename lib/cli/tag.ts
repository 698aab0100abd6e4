/**
 * `deno task tag permedcqa`: labels a user's Persian QA records with ICD-11 categories and question types
 * through a model, as the PerMedCQA paper's tagging step did (lib/benchmarks/permedcqa/tag.ts does the work).
 * @module
 */
import { tagPerMedCqa, tagSummaryText } from "../benchmarks/permedcqa/tag.ts";
import { ConfigError } from "../core/errors.ts";
import { checkNumber, evalOption } from "../pipeline/eval_options.ts";
import { parseColumns } from "../pipeline/plan.ts";
import { requireEnv } from "../pipeline/plan_roles.ts";
import { type CommandSpec, commandUsage, parseCommand } from "./args.ts";

/** Usage of `deno task tag`, for the overview of every command (`deno task tag --help` explains each flag). */
export const TAG_USAGE =
  `  deno task tag permedcqa --model NAME [--base-url URL] [--api-key-env VAR] --data FILE --out DIR
                    [--columns KEY=COL,...] [--concurrency N] [--resume] [--retag] [--limit N] [--quiet]
      (labels each record's ICD-11 category and question type with the model; writes DIR/tagged.jsonl,
       DIR/tag_summary.json and DIR/tag.sqlite; exit 1 when some records stay untagged)`;

/** Parses `--limit` or `--concurrency` with the same checks (integer, at least 1) `eval` applies to them. */
function countFlag(value: string | undefined, flag: "limit" | "concurrency"): number | undefined {
  if (value === undefined) return undefined;
  const n = value.trim() === "" ? NaN : Number(value);
  if (Number.isNaN(n)) throw new ConfigError(`--${flag} expects an integer >= 1, got "${value}"`);
  checkNumber(evalOption(flag)!, n);
  return n;
}

/** The flags and help of `tag`. */
export const TAG_SPEC = {
  command: "deno task tag",
  positionals: "permedcqa",
  description:
    "Labels each record of a Persian QA file with its ICD-11 category (one of 28) and question type " +
    "(one of 25) through a model, as the PerMedCQA paper's tagging step did, so that eval permedcqa can " +
    "report results by them. One request per record asks for both labels; a reply that does not validate is " +
    "asked again (3 attempts), then the record stays untagged with the reason. Writes DIR/tagged.jsonl (every " +
    "record as read, in order, both label columns filled, with tag_status and tag_reason), " +
    "DIR/tag_summary.json and DIR/tag.sqlite (every call, so --resume sends nothing twice). Exits 1 when " +
    "some records stay untagged.",
  flags: {
    model: { value: "NAME", help: "the served model that assigns the labels (required)" },
    "base-url": { value: "URL", help: "its OpenAI-compatible base URL (default $OPENAI_BASE_URL)" },
    "api-key-env": {
      value: "VAR",
      help: "the environment variable holding its API key (default OPENAI_API_KEY); the key is never printed",
    },
    data: {
      value: "FILE",
      help: "the records to tag (required): a JSON array, JSONL, CSV or Parquet file, or a split directory",
    },
    columns: {
      value: "KEY=COL,...",
      help: "columns under other names, e.g. id=qid,question=Text,icd=ICD11,type=QType (the labels are " +
        "written to the icd and type columns in effect)",
    },
    out: {
      value: "DIR",
      help: "the output directory (required) for tagged.jsonl, tag_summary.json and tag.sqlite",
    },
    concurrency: { value: "N", help: "requests in flight (default 8)" },
    resume: {
      help: "continue the tagging run stored in --out: stored replies are reused, nothing is re-sent",
    },
    retag: { help: "ask about every record, also those that already have both labels" },
    limit: { value: "N", help: "tag only the first N records" },
    quiet: { help: "no progress on standard error" },
  },
  notes: [
    "Without --retag a record's labels are kept as written and only a missing one is filled. Labels may be",
    "codes, English or Persian names (data/permedcqa/icd11.json, data/permedcqa/question_types.json).",
    "",
    "example: deno task tag permedcqa --model gpt-4o-mini --data questions.csv --out runs/tagged",
  ],
} satisfies CommandSpec;

/** `tag`: parses the flags, tags, prints the summary; returns the exit code (1 when records stay untagged). */
export async function tagCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(TAG_SPEC, args);
  if (help) {
    console.log(commandUsage(TAG_SPEC));
    return 0;
  }
  if (positionals[0] !== "permedcqa" || positionals.length > 1) {
    const got = positionals.length ? ` (got "${positionals.join(" ")}")` : "";
    throw new ConfigError(`tag: name the benchmark whose labels to assign: permedcqa${got}`);
  }
  if (!values.model) throw new ConfigError("--model is required: the served model that assigns the labels");
  if (!values.data) {
    throw new ConfigError(
      "--data is required: the Persian QA file to tag (JSON array, JSONL, CSV or Parquet)",
    );
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
