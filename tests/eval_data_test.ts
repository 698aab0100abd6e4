/**
 * Reading an evaluation's data (`loadEvalData`): the file is hashed while it is read and validated, and a file
 * that cannot be read is still one error naming it.
 * @module
 */
import { assertEquals, assertRejects } from "@std/assert";
import { getTask } from "../lib/benchmarks/registry.ts";
import { InputError } from "../lib/core/errors.ts";
import { hashFile } from "../lib/core/hash.ts";
import { loadEvalData } from "../lib/pipeline/plan.ts";
import { withTempDir } from "./temp_store.ts";

const CLIMED = new URL("../data/climedbench/sample.jsonl", import.meta.url).pathname;

Deno.test("the data's hash, taken while it is read, is the file's SHA-256", async () => {
  const data = await loadEvalData(await getTask("climedbench"), CLIMED);
  assertEquals(data.sha256, await hashFile(CLIMED));
  assertEquals(data.path, CLIMED);
});

Deno.test("a data file that cannot be read is one error naming it, not the failure of its hash beside", async () => {
  const task = await getTask("climedbench");
  await withTempDir("data", async (dir) => {
    const missing = `${dir}/missing.jsonl`;
    await assertRejects(() => loadEvalData(task, missing), InputError, `${missing}: cannot read file`);
  });
});
