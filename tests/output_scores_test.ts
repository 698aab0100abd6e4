/**
 * `RunStore.outputScores`: what a resumed run checks before it writes or scores an answer again — each output of
 * one condition with how many scores each scorer stored for its sample (judges and runs counted, other
 * conditions and samples without an output left out).
 * @module
 */
import { assertEquals } from "@std/assert";
import { storedScore, withTempStore } from "./temp_store.ts";

Deno.test("outputScores: each output of the condition with its score count per scorer, nothing of other conditions", async () => {
  await withTempStore((store) => {
    store.putOutput({ sampleId: "s1", condition: "c", callKey: "k1", text: "答", error: null });
    store.putOutput({ sampleId: "s2", condition: "c", callKey: null, text: null, error: "HTTP 500" });
    store.putOutput({ sampleId: "s3", condition: "c", callKey: "k3", text: "", error: null });
    store.putOutput({ sampleId: "s1", condition: "other", callKey: "k9", text: "x", error: null });
    for (const run of [1, 2, 3]) {
      store.putScore(storedScore({ sampleId: "s1", scorer: "judge", judge: "j", run }));
    }
    store.putScore(storedScore({ sampleId: "s1", scorer: "judge", judge: "j2", run: 1 }));
    store.putScore(storedScore({ sampleId: "s1", scorer: "exact" }));
    store.putScore(storedScore({ sampleId: "s1", condition: "other", scorer: "exact" }));
    // A score of a sample without an output in the condition is no output's.
    store.putScore(storedScore({ sampleId: "s4", scorer: "exact" }));
    const found = store.outputScores("c").sort((a, b) => a.sampleId.localeCompare(b.sampleId));
    assertEquals(found, [
      { sampleId: "s1", callKey: "k1", answered: true, error: null, scores: { judge: 4, exact: 1 } },
      { sampleId: "s2", callKey: null, answered: false, error: "HTTP 500", scores: {} },
      { sampleId: "s3", callKey: "k3", answered: true, error: null, scores: {} },
    ]);
    assertEquals(store.outputScores("other"), [
      { sampleId: "s1", callKey: "k9", answered: true, error: null, scores: { exact: 1 } },
    ]);
    assertEquals(store.outputScores("none"), []);
  });
});
