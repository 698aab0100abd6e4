/**
 * Opening a run's store for a checked plan: a new store gets the manifest, a resumed one must match it in
 * everything (each condition included) before anything is written; then the samples and any ratings given
 * with the run are stored.
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import { hashValue } from "../core/hash.ts";
import { codeVersion } from "../core/version.ts";
import { storeRatings } from "../store/import_ratings.ts";
import { RunStore } from "../store/run_store.ts";
import { conditionIdentity, type EvalPlan } from "./plan.ts";
import { runConfigRecord, type Shard, shardLabel } from "./shard.ts";

function checkSame(storePath: string, what: string, stored: unknown, current: unknown): void {
  if (hashValue(stored) !== hashValue(current)) {
    throw new ConfigError(
      `cannot resume ${storePath}: "${what}" differs from the stored run (${JSON.stringify(stored)} vs ${
        JSON.stringify(current)
      })`,
    );
  }
}

/** A resumed run must be the same shard of the same split as the stored one (and a whole run stays whole). */
function checkShard(storePath: string, stored: Shard | undefined, current: Shard | undefined): void {
  const what = (shard?: Shard) => shard ? `shard ${shardLabel(shard)}` : "a whole run (no --shard)";
  if (stored?.index !== current?.index || stored?.count !== current?.count) {
    throw new ConfigError(
      `cannot resume ${storePath}: it holds ${what(stored)}, not ${what(current)} (--shard)`,
    );
  }
}

/** Opens (creating, replacing or resuming) the run store of `plan`. Throws ConfigError on a mismatched resume. */
export async function openRunStore(plan: EvalPlan): Promise<RunStore> {
  const { config, task, identity, storePath, samples } = plan;
  if (config.replace) await Deno.remove(config.out, { recursive: true }).catch(() => {});
  await Deno.mkdir(config.out, { recursive: true });
  const store = new RunStore(storePath);
  try {
    const previous = store.manifest();
    const stored = previous ?? {};
    if (previous) {
      const old = previous.identity as Record<string, unknown>;
      for (const [key, value] of Object.entries(identity)) checkSame(storePath, key, old?.[key], value);
      checkShard(storePath, previous.shard as Shard | undefined, plan.shard);
    }
    for (const { condition } of plan.conditions) {
      const key = `condition:${condition.name}`;
      if (key in stored) {
        checkSame(storePath, key, stored[key], conditionIdentity(condition, task, plan.robustness));
      }
    }
    if (previous) {
      store.logEvent("resume", { at: new Date().toISOString() });
    } else {
      const [model] = plan.roles[0].providers;
      const judges = plan.roles.find((r) => r.name === "judge")?.providers ?? [];
      store.setManifest({
        identity,
        model: { name: model.model, label: model.label, offline: model.offline },
        judge: judges.length === 0
          ? null
          : { label: plan.judges.join(" + "), offline: judges.some((j) => j.offline) },
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
        code: await codeVersion(),
        runtime: { deno: Deno.version.deno, os: Deno.build.os },
        created_at: new Date().toISOString(),
      });
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
