/**
 * Sharded runs (`--shard I/N`): a run's conversations split into N shards by a stable hash of their id, so N
 * machines can each evaluate one shard and `deno task merge` can put the shards back together into the run one
 * machine would have made. All turns of a conversation, and every robustness variant of a question, land in the
 * shard of that conversation (a variant's answer is compared with its clean question's). The hash is SHA-256 of
 * the id, so the partition is the same on every machine and Deno version.
 * @module
 */
import type { AppliedCondition } from "../ablations/condition.ts";
import { variantOf } from "../robustness/sets.ts";
import { ConfigError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import type { Sample } from "../core/sample.ts";
import type { EvalConfig } from "./eval_config.ts";

/** One shard of a run: shard `index` (1-based) of `count`. */
export interface Shard {
  /** Which shard, 1 ≤ index ≤ count. */
  index: number;
  /** How many shards the run is split into. */
  count: number;
}

/** Parses `--shard I/N` (1 ≤ I ≤ N). Throws a {@linkcode ConfigError} naming the flag. */
export function parseShard(text: string): Shard {
  const match = text.trim().match(/^(\d+)\s*\/\s*(\d+)$/);
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || index < 1 || count < 1 || index > count || !Number.isSafeInteger(count)) {
    throw new ConfigError(`--shard: expected I/N with 1 <= I <= N (e.g. 2/4), got "${text}"`);
  }
  return { index, count };
}

/** Returns `I/N`, as `--shard` takes it and notes show it. */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * Returns the id `sample` is sharded by: its conversation's id, else its own; for a robustness variant, that of
 * the question it is made from.
 */
export function shardKey(sample: Sample): string {
  const owner = variantOf(sample)?.source ?? sample;
  return owner.conversation?.id ?? owner.id;
}

/** Returns the shard (1-based) of `count` that the id `key` falls in: SHA-256 of the id, modulo `count`. */
export function shardOf(key: string, count: number): number {
  // 48 bits of the hash: an exact integer, and spread evenly over any count a run would use.
  return (parseInt(sha256Hex(key).slice(0, 12), 16) % count) + 1;
}

/** Returns the samples of `samples` in `shard`, in their order. */
export function shardSamples(samples: readonly Sample[], shard: Shard): Sample[] {
  const memo = new Map<string, number>();
  return samples.filter((sample) => {
    const key = shardKey(sample);
    let index = memo.get(key);
    if (index === undefined) memo.set(key, index = shardOf(key, shard.count));
    return index === shard.index;
  });
}

/**
 * Returns a condition applied to a whole run restricted to the samples of one shard: the samples asked are the
 * shard's, while what was measured over the whole run (a perturbation's achieved rate, the items it could not
 * change) stays as it is, so every shard's notes say what the one-machine run's say.
 */
export function shardCondition(applied: AppliedCondition, shard: readonly Sample[]): AppliedCondition {
  const ids = new Set(shard.map((s) => s.id));
  return { ...applied, samples: applied.samples.filter((s) => ids.has(s.id)) };
}

/** Returns the note a shard's summaries carry: its results are partial until the shards are merged. */
export function shardNote(shard: Shard, samples: number, total: number): string {
  return `shard ${shardLabel(shard)}: partial results, ${samples} of the run's ${total} samples; ` +
    "deno task merge combines the shards into the whole run";
}

/** Settings that say where and how this process runs rather than what the run is. */
const LOCAL_SETTINGS: readonly (keyof EvalConfig)[] = [
  "out",
  "shard",
  "resume",
  "replace",
  "progress",
  "renderFigures",
];

/** Returns `path` as an absolute path (relative to the working directory). */
function absolute(path: string): string {
  return path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
}

/** Returns `value` with any `user:password@` left out of the URLs in its strings, at every depth. */
function withoutCredentials(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1");
  if (Array.isArray(value)) return value.map(withoutCredentials);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutCredentials(v)]));
  }
  return value;
}

/**
 * Returns the settings of a run as its manifest keeps them (`config`), so that `deno task merge` can plan the
 * whole run again: everything but where the outputs go, the shard and how this process shows progress; file
 * paths made absolute; no credentials (the configuration names key variables, never keys, and URLs lose any
 * `user:password@`).
 */
export function runConfigRecord(config: EvalConfig): Record<string, unknown> {
  const record: Record<string, unknown> = { ...config };
  for (const key of LOCAL_SETTINGS) delete record[key];
  if (config.data !== undefined) record.data = absolute(config.data);
  if (config.humanEval !== undefined) record.humanEval = absolute(config.humanEval);
  if (config.prices !== undefined) record.prices = absolute(config.prices);
  if (config.profiles !== undefined) record.profiles = absolute(config.profiles);
  if (config.aux !== undefined) {
    record.aux = config.aux.map((a) => a.replace(/^([^=]+=)(.+)$/, (_, name, path) => name + absolute(path)));
  }
  return withoutCredentials(JSON.parse(JSON.stringify(record))) as Record<string, unknown>;
}
