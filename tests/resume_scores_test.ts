import { assert, assertEquals } from "@std/assert";
import { DatabaseSync } from "node:sqlite";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { RunStore } from "../lib/store/run_store.ts";

Deno.test("a resumed run replays every call but scores again only answers whose scores are not all stored", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-resume-scores-" });
  const config = {
    benchmark: "climedbench",
    model: "offline:reference",
    out,
    limit: 12,
    progress: false,
    renderFigures: false,
  };
  try {
    const first = await runEval(config);
    assertEquals(first.failures, 0);
    const store = new RunStore(`${out}/run.sqlite`);
    const [kept, dropped] = store.scores("default");
    // One answer's score is marked by hand; another answer loses its score (as a run stopped before scoring).
    store.putScore({ ...kept, reason: "stored before the resume" });
    store.flush();
    const db = `${out}/run.sqlite`;
    store.close();
    const raw = new DatabaseSync(db);
    raw.prepare("DELETE FROM scores WHERE sample_id = ? AND condition = ?").run(dropped.sampleId, "default");
    raw.close();

    const again = await runEval({ ...config, resume: true });
    assertEquals(again.calls.model, { cached: first.samples.length, sent: 0, retries: 0, failed: 0 });
    const after = new RunStore(db, { readOnly: true });
    const scores = new Map(after.scores("default").map((s) => [s.sampleId, s]));
    after.close();
    // The complete answer was not scored again (its stored score stands); the incomplete one was.
    assertEquals(scores.get(kept.sampleId)?.reason, "stored before the resume");
    assert(scores.has(dropped.sampleId), "the answer without its score is scored on resume");
    assertEquals(scores.get(dropped.sampleId)?.value, dropped.value);
    assertEquals(again.summary.metrics, first.summary.metrics);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
