/**
 * A new run store's manifest records the code version (git's commit and whether the tree was dirty), written
 * once the run's first requests are out rather than before them.
 */
import { assert, assertEquals } from "@std/assert";
import { planEval } from "../lib/pipeline/plan.ts";
import { openRunStore, recordCodeVersion } from "../lib/pipeline/open_store.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { codeVersion } from "../lib/core/version.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { withTempDir } from "./temp_store.ts";

/** A small offline CliMedBench run writing into `out`. */
function config(out: string): EvalConfig {
  return {
    benchmark: "climedbench",
    model: "offline:reference",
    limit: 5,
    out,
    progress: false,
    renderFigures: false,
  };
}

Deno.test("a new store's code version is written when asked, once; a resumed store's is left alone", async () => {
  await withTempDir("code-version", async (out) => {
    const store = await openRunStore(await planEval(config(out)));
    try {
      assertEquals(
        store.manifest()?.code,
        undefined,
        "not asked yet: git is not spawned before the first requests",
      );
      const first = recordCodeVersion(store);
      assert(recordCodeVersion(store) === first, "asked again, the same writing");
      await first;
      assertEquals(store.manifest()?.code, await codeVersion());
    } finally {
      store.close();
    }
    const resumed = await openRunStore(await planEval({ ...config(out), resume: true }));
    try {
      resumed.setManifest({ code: { commit: "earlier", dirty: false } });
      await recordCodeVersion(resumed);
      assertEquals(
        resumed.manifest()?.code,
        { commit: "earlier", dirty: false },
        "a resumed store keeps its own",
      );
    } finally {
      resumed.close();
    }
  });
});

Deno.test("a run's store records the code version, even a run shorter than the delay before it is asked", async () => {
  await withTempDir("code-version", async (out) => {
    await runEval(config(out));
    const store = new RunStore(`${out}/run.sqlite`, { readOnly: true });
    try {
      const code = store.manifest()?.code as { commit: string; dirty: boolean };
      assertEquals(code, await codeVersion());
      assert(code.commit === "unknown" || /^[0-9a-f]{40}$/.test(code.commit), code.commit);
    } finally {
      store.close();
    }
  });
});
