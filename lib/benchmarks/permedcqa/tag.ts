/**
 * `deno task tag permedcqa`: PerMedCQA's annotation step on a user's own Persian QA data. A model assigns each
 * question one of the 28 ICD-11 categories and one of the 25 question types (one request for both); a reply
 * that does not validate is asked again (up to 3 attempts), then the record stays untagged with the reason.
 * Every call goes through one {@linkcode Caller} over `DIR/tag.sqlite`, so `--resume` sends nothing twice.
 * Writes `DIR/tagged.jsonl` (every record as read, in order, with both label columns filled) and
 * `DIR/tag_summary.json`.
 * @module
 */
import { columnsOf, loadPerMedCqa, perMedCqaDataFile } from "./load.ts";
import { formatOf, readRecords } from "../../core/record_files.ts";
import { loadLabels, type PerMedCqaLabels } from "./labels.ts";
import { readTagReply, retryMessages, tagMessages, tagPromptHashes } from "./tag_prompts.ts";
import { ConfigError, InputError } from "../../core/errors.ts";
import { hashFile, hashValue } from "../../core/hash.ts";
import type { Sample } from "../../core/sample.ts";
import { codeVersion } from "../../core/version.ts";
import { Caller } from "../../providers/caller.ts";
import { createProvider } from "../../providers/factory.ts";
import { redact } from "../../providers/transport/redact.ts";
import type { RetryPolicy } from "../../providers/transport/retry.ts";
import { Progress } from "../../report/progress.ts";
import { RunStore } from "../../store/run_store.ts";

/** Attempts per record: the first request and two more after replies that do not validate. */
export const TAG_ATTEMPTS = 3;

/** The role tagging calls are stored under. */
export const TAGGER_ROLE = "tagger";

/** Settings of a tagging run. */
export interface TagOptions {
  /** Served model name. */
  model: string;
  /** Base URL of the OpenAI-compatible API (default `$OPENAI_BASE_URL`). */
  baseUrl?: string;
  /** Environment variable holding the API key (default `OPENAI_API_KEY`). */
  apiKeyEnv?: string;
  /** The data file (JSON array, JSONL, CSV or Parquet) or split directory. */
  data: string;
  /** Columns under other names (`--columns`). */
  columns?: Readonly<Record<string, string>>;
  /** Output directory. */
  out: string;
  /** Requests in flight (default 8). */
  concurrency?: number;
  /** Continue the tagging run stored in `out`. */
  resume?: boolean;
  /** Tag every record, not only those lacking a label. */
  retag?: boolean;
  /** Only the first N records. */
  limit?: number;
  /** No progress on standard error. */
  quiet?: boolean;
  /** Request timeout, in milliseconds (default 120 s). */
  timeoutMs?: number;
  /** Retry policy of retryable call failures (default: the project's). */
  retry?: RetryPolicy;
}

/** What happened to one record. */
export type TagStatus = "kept" | "tagged" | "failed";

/** A record that stayed untagged. */
export interface TagFailure {
  /** Where it is in the file, e.g. `line 4`. */
  record: string;
  /** Its id. */
  id: string;
  /** Why. */
  reason: string;
}

/** Count of one label in the output. */
export interface LabelCount {
  /** Canonical id. */
  id: string;
  /** English name. */
  name: string;
  /** Records carrying it. */
  count: number;
}

/** The content of `tag_summary.json`. */
export interface TagSummary {
  /** The data file and its SHA-256. */
  data: { path: string; sha256: string };
  /** The model's label (no secret). */
  model: string;
  /** The label columns written. */
  columns: { icd: string; type: string };
  /** Records in the output. */
  records: number;
  /** Records whose labels were kept. */
  kept: number;
  /** Records the model labelled. */
  tagged: number;
  /** Records left untagged. */
  failed: number;
  /** Calls sent to the model, answered from the store, and retries waited for. */
  calls: { sent: number; cached: number; retries: number };
  /** The untagged records and why. */
  failures: TagFailure[];
  /** Records per ICD-11 category, in table order. */
  icd11: LabelCount[];
  /** Records per question type, in table order. */
  question_type: LabelCount[];
}

/** Where a finished tagging run wrote and what it counted. */
export interface TagResult {
  /** `DIR/tagged.jsonl`. */
  taggedPath: string;
  /** `DIR/tag_summary.json`. */
  summaryPath: string;
  /** The summary written. */
  summary: TagSummary;
}

/** One raw record and where it is. */
interface RawRecord {
  value: Record<string, unknown>;
  where: string;
}

/** Returns `value` with bigints (Parquet integers) as numbers, or strings beyond the safe range. */
function jsonSafe(value: unknown): unknown {
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : String(value);
  }
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSafe(v)]));
  }
  return value;
}

/** Reads the raw records of `file` as {@linkcode loadPerMedCqa} reads them, Parquet integers made JSON-safe. */
async function readRawRecords(file: string): Promise<RawRecord[]> {
  return (await readRecords(file, formatOf(file, "json"))).map(({ value, where }) => ({
    value: jsonSafe(value) as Record<string, unknown>,
    where,
  }));
}

/** The request parameters of every tagging call. */
const TAG_PARAMS = { temperature: 0, jsonMode: true } as const;

/** The model's answer for one record: both ids, or why there are none. */
type Asked = { icd11: string; questionType: string } | { reason: string };

/** Asks for both labels of `sample`, again (repeat 1, 2) after replies that do not validate. */
async function askLabels(caller: Caller, labels: PerMedCqaLabels, sample: Sample): Promise<Asked> {
  const title = typeof sample.extra.title === "string" ? sample.extra.title : null;
  let messages = tagMessages(labels, sample.input, title);
  let problems: string[] = [];
  for (let attempt = 0; attempt < TAG_ATTEMPTS; attempt++) {
    let text: string;
    try {
      text = (await caller.call({ messages, ...TAG_PARAMS }, attempt)).call.text;
    } catch (err) {
      return { reason: `call failed: ${redact(err instanceof Error ? err.message : String(err))}` };
    }
    const reply = readTagReply(labels, text);
    if (reply.ok) return reply;
    problems = reply.problems;
    messages = retryMessages(messages, text, problems);
  }
  return { reason: `no valid reply in ${TAG_ATTEMPTS} attempts (last: ${problems.join("; ")})` };
}

/** Opens the tagging store of `out`: a new one gets the manifest, a resumed one must match it. */
async function openTagStore(
  storePath: string,
  identity: Record<string, unknown>,
  record: Record<string, unknown>,
): Promise<RunStore> {
  const store = new RunStore(storePath);
  try {
    const stored = store.manifest()?.tag_identity as Record<string, unknown> | undefined;
    if (stored) {
      for (const [key, value] of Object.entries(identity)) {
        if (hashValue(stored[key]) !== hashValue(value)) {
          throw new ConfigError(
            `cannot resume ${storePath}: the ${key} differs from the stored tagging run (${
              JSON.stringify(stored[key])
            } vs ${JSON.stringify(value)}); choose another --out`,
          );
        }
      }
      store.logEvent("resume", { at: new Date().toISOString() });
    } else {
      store.setManifest({ tag_identity: identity, ...record, code: await codeVersion() });
    }
    return store;
  } catch (err) {
    store.close();
    throw err;
  }
}

/** Returns the counts of each label of `table` among `ids`, in table order. */
function countLabels(
  entries: readonly { id: string; english: string }[],
  ids: (string | null)[],
): LabelCount[] {
  return entries.map((e) => ({ id: e.id, name: e.english, count: ids.filter((id) => id === e.id).length }));
}

/** Returns the output line of a record: its columns as read, `labels` written over them, and the status. */
function outputLine(
  raw: RawRecord,
  labels: Record<string, unknown>,
  status: TagStatus,
  taggedBy: string | null,
  reason: string | null,
): string {
  return JSON.stringify({
    ...raw.value,
    ...labels,
    tagged_by: taggedBy,
    tag_status: status,
    tag_reason: reason,
  });
}

/**
 * Tags the records of `options.data` lacking a label (every record with `retag`) and writes the outputs.
 * Settings are checked and the data read before anything is written; problems are one-line
 * {@linkcode ConfigError}s naming the flag, bad data {@linkcode InputError}s naming file, record and field.
 */
export async function tagPerMedCqa(options: TagOptions): Promise<TagResult> {
  const columns = columnsOf(options.columns);
  const provider = createProvider({
    model: options.model,
    baseUrl: options.baseUrl,
    apiKeyEnv: options.apiKeyEnv,
    timeoutMs: options.timeoutMs,
    concurrency: options.concurrency,
    who: `--model: tagger "${options.model}"`,
    offline: {},
  });
  const labels = await loadLabels();
  const file = await perMedCqaDataFile(options.data);
  const allSamples = await loadPerMedCqa(file, { requireLabels: false, columns: options.columns });
  const allRaw = await readRawRecords(file);
  if (allRaw.length !== allSamples.length) {
    throw new InputError({ file }, `read ${allRaw.length} raw records but ${allSamples.length} samples`);
  }
  const n = Math.min(options.limit ?? Infinity, allSamples.length);
  const samples = allSamples.slice(0, n);
  const raw = allRaw.slice(0, n);
  const sha256 = await hashFile(file);

  const outStat = await Deno.stat(options.out).catch(() => null);
  if (outStat && !outStat.isDirectory) {
    throw new ConfigError(`--out: ${options.out} exists and is not a directory`);
  }
  const storePath = `${options.out}/tag.sqlite`;
  if (!options.resume && await Deno.stat(storePath).catch(() => null)) {
    throw new ConfigError(
      `--out: ${storePath} already holds a tagging run: pass --resume to continue it, or choose another --out`,
    );
  }
  await Deno.mkdir(options.out, { recursive: true });
  const identity = {
    benchmark: "permedcqa",
    model: provider.model,
    data_sha256: sha256,
    columns,
    prompts: tagPromptHashes(labels),
  };
  const store = await openTagStore(storePath, identity, {
    tagger: { name: provider.model, label: provider.label },
    data: { path: file, sha256, records: allSamples.length },
    runtime: { deno: Deno.version.deno, os: Deno.build.os },
    created_at: new Date().toISOString(),
  });
  try {
    const needs = samples.map((s) =>
      options.retag || s.fields.icd11 === null || s.fields.question_type === null
    );
    const progress = new Progress(`tag ${provider.model}`, needs.filter(Boolean).length, {
      enabled: !options.quiet,
    });
    const caller = new Caller(provider, store, TAGGER_ROLE, options.retry, progress);
    const outcomes = await Promise.all(samples.map(async (sample, i) => {
      if (!needs[i]) return undefined;
      const asked = await askLabels(caller, labels, sample);
      progress.tick(1, "reason" in asked);
      return asked;
    }));
    progress.finish();

    const lines: string[] = [];
    const icdIds: (string | null)[] = [];
    const typeIds: (string | null)[] = [];
    const failures: TagFailure[] = [];
    const counts = { kept: 0, tagged: 0, failed: 0 };
    samples.forEach((sample, i) => {
      const asked = outcomes[i];
      const text = (value: string | number | null) => value === null ? null : String(value);
      const own = { icd11: text(sample.fields.icd11), type: text(sample.fields.question_type) };
      if (asked === undefined) {
        counts.kept++;
        icdIds.push(own.icd11);
        typeIds.push(own.type);
        const previous = raw[i].value.tagged_by;
        lines.push(outputLine(raw[i], {}, "kept", typeof previous === "string" ? previous : null, null));
      } else if ("reason" in asked) {
        counts.failed++;
        icdIds.push(null);
        typeIds.push(null);
        failures.push({ record: raw[i].where, id: String(sample.extra.instance_id), reason: asked.reason });
        lines.push(outputLine(raw[i], {}, "failed", null, asked.reason));
      } else {
        counts.tagged++;
        // Without --retag a label the record already has is kept as written; the model fills the missing one.
        const written: Record<string, unknown> = {};
        if (options.retag || own.icd11 === null) written[columns.icd] = asked.icd11;
        if (options.retag || own.type === null) {
          written[columns.type] = labels.types.byId.get(asked.questionType)!.english;
        }
        icdIds.push(options.retag || own.icd11 === null ? asked.icd11 : own.icd11);
        typeIds.push(options.retag || own.type === null ? asked.questionType : own.type);
        lines.push(outputLine(raw[i], written, "tagged", provider.label, null));
      }
    });

    const taggedPath = `${options.out}/tagged.jsonl`;
    const summaryPath = `${options.out}/tag_summary.json`;
    const summary: TagSummary = {
      data: { path: file, sha256 },
      model: provider.label,
      columns: { icd: columns.icd, type: columns.type },
      records: samples.length,
      ...counts,
      calls: { sent: caller.stats.sent, cached: caller.stats.cached, retries: caller.stats.retries },
      failures,
      icd11: countLabels(labels.icd.entries, icdIds),
      question_type: countLabels(labels.types.entries, typeIds),
    };
    await Deno.writeTextFile(taggedPath, lines.join("\n") + "\n");
    await Deno.writeTextFile(summaryPath, JSON.stringify(summary, null, 2) + "\n");
    store.logEvent("tagged", { ...counts, sent: caller.stats.sent, cached: caller.stats.cached });
    return { taggedPath, summaryPath, summary };
  } finally {
    store.close();
  }
}

/** Returns the one-paragraph summary of a tagging run. */
export function tagSummaryText(result: TagResult): string {
  const s = result.summary;
  const top = (counts: LabelCount[]) => {
    const best = [...counts].sort((a, b) => b.count - a.count)[0];
    return best && best.count > 0 ? `${best.id} ${best.name} (${best.count})` : "none";
  };
  const parts = [
    `Tagged ${s.data.path} with ${s.model}: ${s.records} records, ${s.kept} kept, ${s.tagged} tagged, ` +
    `${s.failed} failed; ${s.calls.sent} calls sent, ${s.calls.cached} from the run store.`,
    `Most frequent ICD-11 category: ${top(s.icd11)}; question type: ${top(s.question_type)}.`,
    `Wrote ${result.taggedPath} and ${result.summaryPath}.`,
  ];
  if (s.failed > 0) {
    parts.push(
      `${s.failed} record(s) stayed untagged (tag_status "failed", reason in tag_reason, first: ` +
        `${s.failures[0].record} (id ${s.failures[0].id})); \`deno task eval permedcqa --data ` +
        `${result.taggedPath}\` stops at the first of them with a one-line error: label or remove them first.`,
    );
    const unsent = s.failures.filter((f) => f.reason.startsWith("call failed")).length;
    if (unsent > 0) {
      parts.push(`${unsent} of them failed to reach the model: rerun with --resume to ask again.`);
    }
  }
  return parts.join(" ");
}
