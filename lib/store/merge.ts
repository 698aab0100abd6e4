/**
 * Merging the run stores of a sharded run (`--shard I/N`) into one: the shards must be shards of the same run
 * (same manifest identity and conditions, same N, each of 1..N exactly once; they may have been served from
 * different addresses), and no sample may have been answered or scored differently in two of them. The merged
 * store holds every sample in the one-machine order, every call, output and score, every event tagged with
 * the shard that logged it, and how each role's requests went on the wire in every shard (`request_shapes`,
 * see {@linkcode mergeRequestShapes}).
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { hashValue, stableStringify } from "../core/hash.ts";
import type { Sample } from "../core/sample.ts";
import { RunStore } from "./run_store.ts";

/** Which shard of how many a shard's manifest says it holds. */
export interface ShardEntry {
  /** 1-based shard number. */
  index: number;
  /** Number of shards of the run. */
  count: number;
}

/** One shard's run directory, its store opened read-only. */
export interface ShardRun {
  /** The run directory as given. */
  dir: string;
  /** Its shard. */
  shard: ShardEntry;
  /** Its manifest. */
  manifest: Record<string, unknown>;
  /** Its store (read-only); close it with {@linkcode closeShards}. */
  store: RunStore;
}

/** What a merge copied. */
export interface MergeCounts {
  /** Samples of the merged run. */
  samples: number;
  /** Distinct calls. */
  calls: number;
  /** Outputs (samples × conditions). */
  outputs: number;
  /** Scores. */
  scores: number;
  /** Events of the shards. */
  events: number;
  /**
   * Calls made in several shards (the same request asked by different conversations) whose replies differ:
   * the first shard's is kept; each shard's outputs keep the text they got.
   */
  differingCalls: string[];
  /**
   * Roles and models (`ROLE MODEL`) whose requests the shards put on the wire differently: the merged
   * manifest's `request_shapes` records each shard's shape for them (see {@linkcode mergeRequestShapes}).
   */
  differingShapes: string[];
}

/** Returns `I/N`. */
function label(shard: ShardEntry): string {
  return `${shard.index}/${shard.count}`;
}

/** Returns the shard entry of a manifest, or `undefined` when it has none or a malformed one. */
function shardEntry(manifest: Record<string, unknown>): ShardEntry | undefined {
  const shard = manifest.shard as Partial<ShardEntry> | undefined;
  const ok = shard && Number.isInteger(shard.index) && Number.isInteger(shard.count) &&
    shard.index! >= 1 && shard.index! <= shard.count!;
  return ok ? { index: shard.index!, count: shard.count! } : undefined;
}

/** Opens the run store of the shard run in `dir` read-only. Throws a {@linkcode ConfigError} naming `dir`. */
export function openShard(dir: string): ShardRun {
  const path = `${dir}/run.sqlite`;
  try {
    if (!Deno.statSync(path).isFile) throw new Error("not a file");
  } catch {
    throw new ConfigError(`merge: ${dir} holds no run (no ${path})`);
  }
  const store = new RunStore(path, { readOnly: true });
  const manifest = store.manifest();
  const shard = manifest && shardEntry(manifest);
  if (!manifest || !shard) {
    store.close();
    throw new ConfigError(
      `merge: ${dir} is not a shard of a run: ${
        manifest ? "it was run without --shard" : "its store is empty"
      }`,
    );
  }
  return { dir, shard, manifest, store };
}

/** Closes the stores of `shards`. */
export function closeShards(shards: readonly ShardRun[]): void {
  for (const shard of shards) shard.store.close();
}

/** One entry in which two manifests differ: its key and the two values (`null` where one lacks it). */
export interface ManifestDifference {
  /** The identity entry (`judge`, `prompts`, ...) or condition (`condition:NAME`). */
  key: string;
  /** Its value in the first manifest. */
  first: unknown;
  /** Its value in the other. */
  other: unknown;
}

/** Returns every key whose value differs between two records (compared as canonical JSON), sorted by key. */
export function recordDifferences(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): ManifestDifference[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((key) => hashValue(a[key] ?? null) !== hashValue(b[key] ?? null))
    .map((key) => ({ key, first: a[key] ?? null, other: b[key] ?? null }));
}

/** Returns the conditions of a manifest (`condition:NAME` entries). */
export function manifestConditions(manifest: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(manifest).filter(([key]) => key.startsWith("condition:")));
}

/**
 * Returns the model name in a label written by earlier versions into the identity: `NAME @ host/path (+K)` or
 * `offline:NAME (what it is)` give `NAME`; anything else is returned as it is.
 */
function labelModel(label: unknown): unknown {
  if (typeof label !== "string") return label;
  return label.match(/^(offline:\S+) \(/)?.[1] ?? label.replace(/ @ \S+(?: \(\+\d+\))?$/, "");
}

/**
 * Returns the identity of a run's manifest. Stores written before endpoints were recorded apart (no
 * `endpoints` entry) named the judges, embedder and other roles by their labels, which held the address they
 * were served at: those are read as the model names they begin with, so such runs resume and merge too.
 */
export function manifestIdentity(manifest: Record<string, unknown>): Record<string, unknown> {
  const identity = (manifest.identity ?? {}) as Record<string, unknown>;
  if ("endpoints" in manifest) return identity;
  const { judge, embedder, roles } = identity;
  return {
    ...identity,
    ...(judge !== undefined
      ? { judge: Array.isArray(judge) ? judge.map(labelModel) : labelModel(judge) }
      : {}),
    ...(embedder !== undefined ? { embedder: labelModel(embedder) } : {}),
    ...(roles && typeof roles === "object"
      ? { roles: Object.fromEntries(Object.entries(roles).map(([name, label]) => [name, labelModel(label)])) }
      : {}),
  };
}

/**
 * Returns every entry of the identity, then every condition, in which two manifests differ (with the two
 * values); empty when they describe the same run. Where the models were served is not compared: it is not
 * part of the identity.
 */
export function runDifferences(
  first: Record<string, unknown>,
  other: Record<string, unknown>,
): ManifestDifference[] {
  return [
    ...recordDifferences(manifestIdentity(first), manifestIdentity(other)),
    ...recordDifferences(manifestConditions(first), manifestConditions(other)),
  ];
}

/** Returns the first of {@linkcode runDifferences}, or `undefined` when the manifests describe the same run. */
export function runDifference(
  first: Record<string, unknown>,
  other: Record<string, unknown>,
): ManifestDifference | undefined {
  return runDifferences(first, other)[0];
}

/** Returns `value` as short JSON for a one-line message. */
function brief(value: unknown): string {
  const json = stableStringify(value) ?? "null";
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/** Returns `true` for a plain object (not an array, not `null`). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Describes differences for a one-line message: `"KEY" differs (A vs B)` each, joined by `; `, where `labels`
 * prefix the two values (e.g. `stored ` and `now `); of two records only the entries that differ are shown.
 */
export function describeDifferences(
  differences: readonly ManifestDifference[],
  labels: readonly [string, string] = ["", ""],
): string {
  return differences.map(({ key, first, other }) => {
    const pair = (a: unknown, b: unknown) => `${labels[0]}${brief(a)} vs ${labels[1]}${brief(b)}`;
    const detail = isRecord(first) && isRecord(other)
      ? recordDifferences(first, other).map((d) => `${d.key}: ${pair(d.first, d.other)}`).join(", ")
      : pair(first, other);
    return `"${key}" differs (${detail})`;
  }).join("; ");
}

/**
 * Checks that `shards` are the N shards of one run: the same identity and conditions, the same N, and each of
 * 1..N exactly once. Every problem is a one-line {@linkcode ConfigError} naming the directories.
 */
export function checkShardSet(shards: readonly ShardRun[]): void {
  if (shards.length === 0) throw new ConfigError("merge: name the shards' run directories");
  const [first] = shards;
  for (const other of shards.slice(1)) {
    if (other.shard.count !== first.shard.count) {
      throw new ConfigError(
        `merge: ${other.dir} is shard ${label(other.shard)} but ${first.dir} is shard ${
          label(first.shard)
        }: all shards must split the run the same way`,
      );
    }
  }
  const byIndex = new Map<number, ShardRun>();
  for (const run of shards) {
    const earlier = byIndex.get(run.shard.index);
    if (earlier) {
      throw new ConfigError(`merge: ${earlier.dir} and ${run.dir} are both shard ${label(run.shard)}`);
    }
    byIndex.set(run.shard.index, run);
  }
  for (const other of shards.slice(1)) {
    const differences = runDifferences(first.manifest, other.manifest);
    if (differences.length) {
      throw new ConfigError(
        `merge: ${other.dir} is not a shard of the same run as ${first.dir}: ${
          describeDifferences(differences)
        }`,
      );
    }
  }
  const missing = Array.from({ length: first.shard.count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) {
    const given = [...byIndex.values()].map((r) => `${label(r.shard)} in ${r.dir}`).join(", ");
    throw new ConfigError(
      `merge: shard${missing.length > 1 ? "s" : ""} ${
        missing.map((i) => `${i}/${first.shard.count}`).join(", ")
      } ${missing.length > 1 ? "are" : "is"} missing (given: ${given})`,
    );
  }
}

/** A role's requests to one model that shards put on the wire differently: each shard's shape, by `I/N`. */
export interface ShapesByShard {
  /** The shape each shard that sent such requests recorded, by its label `I/N`, in shard order. */
  by_shard: Record<string, unknown>;
}

/** The merged run's `request_shapes`, by role and model, and the roles and models the shards differ on. */
export interface MergedShapes {
  /** By role, then model: the shape the shards recorded, or {@linkcode ShapesByShard} where they differ. */
  shapes: Record<string, Record<string, unknown>>;
  /** `ROLE MODEL` of each entry whose shape differs between shards, in the order first met. */
  differing: string[];
}

/**
 * Returns the `request_shapes` of the merged run: the union over `shards` (in shard order) of what each
 * recorded, by role and model (a shard that sent a role no request to a model recorded nothing for it). Where
 * every shard that recorded a shape for a role and model recorded the same one, that shape is kept as it is;
 * where two differ (e.g. shards served by different servers, one of which refused `seed`), the entry is
 * `{by_shard: {"I/N": shape, ...}}` with each of those shards' shapes under its label, so a reader expecting
 * one shape finds none rather than one that holds for only some of the samples, and the entry is listed in
 * `differing`. Such a run is merged, not refused: each shard's answers are what its requests got.
 */
export function mergeRequestShapes(shards: readonly ShardRun[]): MergedShapes {
  const seen = new Map<string, { role: string; model: string; byShard: Map<string, unknown> }>();
  for (const run of shards) {
    const recorded = run.manifest.request_shapes;
    if (!isRecord(recorded)) continue;
    for (const [role, models] of Object.entries(recorded)) {
      if (!isRecord(models)) continue;
      for (const [model, shape] of Object.entries(models)) {
        const key = stableStringify([role, model]);
        const entry = seen.get(key) ?? { role, model, byShard: new Map() };
        seen.set(key, entry);
        entry.byShard.set(label(run.shard), shape);
      }
    }
  }
  const shapes: Record<string, Record<string, unknown>> = {};
  const differing: string[] = [];
  for (const { role, model, byShard } of seen.values()) {
    const distinct = new Set([...byShard.values()].map((shape) => stableStringify(shape)));
    const [first] = byShard.values();
    if (distinct.size > 1) differing.push(`${role} ${model}`);
    shapes[role] = {
      ...shapes[role],
      [model]: distinct.size > 1 ? { by_shard: Object.fromEntries(byShard) } satisfies ShapesByShard : first,
    };
  }
  return { shapes, differing };
}

/**
 * Returns the manifest of the merged run: the first shard's without its shard, the ratings summed, the
 * request shapes of every shard (`shapes`), and where it came from.
 */
function mergedManifest(
  shards: readonly ShardRun[],
  shapes: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const { shard: _shard, request_shapes: _shapes, ...manifest } = shards[0].manifest;
  if (Object.keys(shapes).length) manifest.request_shapes = shapes;
  for (const key of Object.keys(manifest).filter((k) => k.startsWith("ratings:"))) {
    const total = shards.reduce(
      (sum, s) => sum + Number((s.manifest[key] as { ratings?: number })?.ratings ?? 0),
      0,
    );
    manifest[key] = { ...(manifest[key] as Record<string, unknown>), ratings: total };
  }
  const created = shards.map((s) => String(s.manifest.created_at ?? "")).sort();
  return {
    ...manifest,
    created_at: created[0],
    merged: {
      at: new Date().toISOString(),
      shards: shards.map((s) => ({
        shard: label(s.shard),
        dir: s.dir,
        created_at: s.manifest.created_at,
        ...(s.manifest.endpoints ? { endpoints: s.manifest.endpoints } : {}),
      })),
    },
  };
}

/** Returns `true` when `path` exists. */
function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Removes a store that could not be finished (the database and its WAL files). */
function removeStore(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      Deno.removeSync(file);
    } catch {
      // not there
    }
  }
}

/** What a shard stored for one key (a sample's output, or one score), as canonical JSON, and which shard. */
type Seen = Map<string, { json: string; dir: string }>;

/**
 * Returns `true` the first time `key` is seen, `false` when an earlier shard stored the same `value`; throws a
 * {@linkcode ConfigError} naming both shards when it stored something else.
 */
function firstTime(seen: Seen, key: string, value: unknown, run: ShardRun, what: string): boolean {
  const json = stableStringify(value);
  const earlier = seen.get(key);
  if (!earlier) {
    seen.set(key, { json, dir: run.dir });
    return true;
  }
  if (earlier.json === json) return false;
  throw new ConfigError(`merge: ${what} differs between ${earlier.dir} and ${run.dir}`);
}

/**
 * Writes the run store at `path` (which must not exist) from `shards` (checked with {@linkcode checkShardSet}):
 * the merged manifest (with every shard's request shapes, {@linkcode mergeRequestShapes}), `samples` (the
 * whole run, in the one-machine order), every call (one per key), the outputs and scores of each condition in
 * `conditions` order, and every event, oldest first, tagged with its shard. A sample answered or scored in two
 * shards with different results is a {@linkcode ConfigError}, and leaves no store behind. The store is closed
 * when this returns.
 */
export function mergeStores(
  path: string,
  shards: readonly ShardRun[],
  order: { samples: readonly Sample[]; conditions: readonly string[] },
): MergeCounts {
  if (exists(path)) throw new ConfigError(`merge --out: ${path} already holds a run; choose another --out`);
  const sorted = [...shards].sort((a, b) => a.shard.index - b.shard.index);
  const counts: MergeCounts = {
    samples: order.samples.length,
    calls: 0,
    outputs: 0,
    scores: 0,
    events: 0,
    differingCalls: [],
    differingShapes: [],
  };
  const shapes = mergeRequestShapes(sorted);
  counts.differingShapes = shapes.differing;
  const merged = new RunStore(path);
  let finished = false;
  try {
    merged.setManifest(mergedManifest(sorted, shapes.shapes));
    merged.putSamples(order.samples);
    for (const { store } of sorted) {
      for (const call of store.eachCall()) {
        const earlier = merged.getCall(call.key);
        if (!earlier) {
          merged.putCall(call);
          counts.calls++;
        } else if (earlier.text !== call.text) counts.differingCalls.push(call.key);
      }
    }
    for (const condition of order.conditions) {
      const outputs: Seen = new Map();
      const scores: Seen = new Map();
      for (const run of sorted) {
        for (const output of run.store.outputs(condition)) {
          const what = `the answer to sample ${output.sampleId} (condition ${condition})`;
          if (!firstTime(outputs, output.sampleId, output, run, what)) continue;
          merged.putOutput(output);
          counts.outputs++;
        }
        for (const score of run.store.scores(condition)) {
          const key = stableStringify([score.sampleId, score.scorer, score.judge, score.run]);
          const what =
            `score ${score.scorer} run ${score.run} of sample ${score.sampleId} (condition ${condition})`;
          if (!firstTime(scores, key, score, run, what)) continue;
          merged.putScore(score);
          counts.scores++;
        }
      }
    }
    const events = sorted.flatMap((run) =>
      run.store.events().map((e) => ({ ...e, shard: label(run.shard) }))
    );
    events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    for (const event of events) {
      const detail = event.detail !== null && typeof event.detail === "object" && !Array.isArray(event.detail)
        ? event.detail
        : { detail: event.detail };
      merged.logEvent(event.kind, { shard: event.shard, logged_at: event.at, ...detail });
    }
    counts.events = events.length;
    merged.logEvent("merged", {
      shards: sorted.map((s) => ({ shard: label(s.shard), dir: s.dir })),
      ...(shapes.differing.length ? { differing_request_shapes: shapes.differing } : {}),
    });
    finished = true;
    return counts;
  } finally {
    merged.close();
    if (!finished) removeStore(path);
  }
}
