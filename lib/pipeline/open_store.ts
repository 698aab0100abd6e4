/**
 * Opening a run's store for a checked plan: a new store gets the manifest, a resumed one must match its
 * identity in everything (each condition and the shard included; every difference is named) before anything
 * is written. Where the roles are served is not identity: a changed address is warned about on stderr,
 * logged and recorded. Then the samples and any ratings given with the run are stored.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { codeVersion } from "../core/version.ts";
import { storeRatings } from "../store/import_ratings.ts";
import { describeDifferences, manifestIdentity, recordDifferences } from "../store/merge.ts";
import { RunStore } from "../store/run_store.ts";
import { conditionIdentities, conditionIdentity, type EvalPlan } from "./plan.ts";
import type { RoleEndpoints } from "./plan_roles.ts";
import { runConfigRecord, type Shard, shardLabel } from "./shard.ts";

/** Returns `host/path` of a label `NAME @ host/path (+K)` written by earlier versions, if it has one. */
function labelAddress(label: unknown): string | undefined {
  return typeof label === "string" ? label.match(/ @ (\S+)(?: \(\+\d+\))?$/)?.[1] : undefined;
}

/**
 * Returns where each role of a stored run was served: its manifest's `endpoints`, or, for stores written before
 * those were recorded, the addresses its labels held (the first endpoint of each role).
 */
function storedEndpoints(manifest: Record<string, unknown>): RoleEndpoints {
  if (manifest.endpoints) return manifest.endpoints as RoleEndpoints;
  const identity = (manifest.identity ?? {}) as Record<string, unknown>;
  const labels: [string, unknown[]][] = [
    ["model", [(manifest.model as { label?: string } | undefined)?.label]],
    ["judge", [identity.judge].flat()],
    ["embed", [identity.embedder]],
    ...Object.entries((identity.roles ?? {}) as Record<string, unknown>).map(([name, label]) =>
      [name, [label]] as [string, unknown[]]
    ),
  ];
  const out: RoleEndpoints = {};
  for (const [role, values] of labels) {
    const addresses = [...new Set(values.map(labelAddress).filter((a): a is string => a !== undefined))];
    if (addresses.length) out[role] = addresses;
  }
  return out;
}

/** Returns the roles whose addresses differ between the stored run and this one, with both. */
function changedEndpoints(
  stored: RoleEndpoints,
  current: RoleEndpoints,
): { role: string; from: string[]; to: string[] }[] {
  const roles = [...new Set([...Object.keys(current), ...Object.keys(stored)])];
  return roles.map((role) => ({ role, from: stored[role] ?? [], to: current[role] ?? [] }))
    .filter(({ from, to }) => from.join(",") !== to.join(","));
}

/**
 * Returns every way `plan` is not the stored run, as one line (empty when it may be resumed): the shard (a
 * resumed run is the same shard, and a whole run stays whole), each identity entry, and each condition both
 * define (a resumed run may add conditions).
 */
function resumeMismatch(manifest: Record<string, unknown>, plan: EvalPlan): string {
  const parts: string[] = [];
  const stored = manifest.shard as Shard | undefined;
  if (stored?.index !== plan.shard?.index || stored?.count !== plan.shard?.count) {
    const what = (shard?: Shard) => shard ? `shard ${shardLabel(shard)}` : "a whole run (no --shard)";
    parts.push(`it holds ${what(stored)}, not ${what(plan.shard)} (--shard)`);
  }
  const conditions = plan.conditions.map(({ condition }) => `condition:${condition.name}`)
    .filter((key) => key in manifest);
  const current = JSON.parse(JSON.stringify({
    identity: plan.identity,
    conditions: conditionIdentities(plan),
  }));
  const differences = [
    ...recordDifferences(manifestIdentity(manifest), current.identity),
    ...recordDifferences(
      Object.fromEntries(conditions.map((key) => [key, manifest[key]])),
      Object.fromEntries(conditions.map((key) => [key, current.conditions[key]])),
    ),
  ];
  if (differences.length) {
    parts.push(
      `it differs from the stored run in ${differences.length} ${
        differences.length === 1 ? "entry" : "entries"
      }: ${describeDifferences(differences, ["stored ", "now "])}`,
    );
  }
  return parts.join("; ");
}

/** New stores whose manifest does not hold the code version yet, with its writing once begun. */
const codeOwed = new WeakMap<RunStore, Promise<void> | undefined>();

/**
 * Records the code version (git's commit, and whether the tree was dirty) in the manifest of a store
 * {@linkcode openRunStore} created; resolves at once for any other store. A run asks once its first requests
 * are out, since spawning git holds this thread ~5-10 ms, and waits for it before the store closes; asked
 * again, it returns the same writing.
 */
export function recordCodeVersion(store: RunStore): Promise<void> {
  if (!codeOwed.has(store)) return Promise.resolve();
  let writing = codeOwed.get(store);
  if (!writing) {
    writing = codeVersion().then((code) => store.setManifest({ code }));
    codeOwed.set(store, writing);
  }
  return writing;
}

/**
 * Opens (creating, replacing or resuming) the run store of `plan`; a new store's code version is recorded by
 * {@linkcode recordCodeVersion}. Throws ConfigError on a mismatched resume.
 */
export async function openRunStore(plan: EvalPlan): Promise<RunStore> {
  const { config, task, identity, storePath, samples } = plan;
  if (config.replace) await Deno.remove(config.out, { recursive: true }).catch(() => {});
  await Deno.mkdir(config.out, { recursive: true });
  const store = new RunStore(storePath);
  try {
    const previous = store.manifest();
    const stored = previous ?? {};
    if (previous) {
      const mismatch = resumeMismatch(previous, plan);
      if (mismatch) throw new ConfigError(`cannot resume ${storePath}: ${mismatch}`);
      store.logEvent("resume", { at: new Date().toISOString() });
      const changed = changedEndpoints(storedEndpoints(previous), plan.endpoints);
      for (const { role, from, to } of changed) {
        const list = (addresses: string[]) => addresses.join(", ") || "none";
        console.error(
          `warning: resuming ${storePath}: the ${role} is now served at ${list(to)} (was ${list(from)}); ` +
            "the run is the same, each call records where it was answered",
        );
      }
      if (changed.length) {
        store.logEvent("endpoints_changed", { changes: changed });
        store.setManifest({ endpoints: plan.endpoints });
      }
      // A store of an earlier version takes today's form: its identity by model names (equal, as just checked).
      if (!("endpoints" in previous)) store.setManifest({ identity, endpoints: plan.endpoints });
    } else {
      const [model] = plan.roles[0].providers;
      const judges = plan.roles.find((r) => r.name === "judge")?.providers ?? [];
      store.setManifest({
        identity,
        model: { name: model.model, label: model.label, offline: model.offline },
        judge: judges.length === 0
          ? null
          : { label: plan.judges.join(" + "), offline: judges.some((j) => j.offline) },
        endpoints: plan.endpoints,
        data: { path: plan.dataPath, sha256: identity.data_sha256, samples: plan.allSamples.length },
        ...(plan.shard ? { shard: plan.shard } : {}),
        ...(plan.auxiliary.size
          ? {
            auxiliary: Object.fromEntries(
              [...plan.auxiliary].map((
                [name, a],
              ) => [name, { path: a.path, sha256: a.sha256, samples: a.samples.length }]),
            ),
          }
          : {}),
        runtime: { deno: Deno.version.deno, os: Deno.build.os },
        created_at: new Date().toISOString(),
      });
      // The code version is recorded once the run's first requests are out (recordCodeVersion).
      codeOwed.set(store, undefined);
    }
    for (const { condition } of plan.conditions) {
      const key = `condition:${condition.name}`;
      if (!(key in stored)) store.setManifest({ [key]: conditionIdentity(condition, task, plan.robustness) });
    }
    // The settings, so that `deno task merge` can plan the whole run of a set of shards again.
    if (!("config" in stored)) store.setManifest({ config: runConfigRecord(config) });
    store.putSamples(samples);
    if (plan.ratings) {
      const { scorer, spec, file } = plan.ratings;
      storeRatings(store, file, scorer, plan.conditions[0].condition.name, spec);
    }
    return store;
  } catch (err) {
    store.close();
    throw err;
  }
}
