/**
 * Reading an evaluation's data (`loadEvalData`): the file is read once, its bytes hashed as they are validated
 * (a directory is hashed file by file), and a file that cannot be read is still one error naming it.
 * @module
 */
import { assertEquals, assertRejects } from "@std/assert";
import { getTask } from "../lib/benchmarks/registry.ts";
import { InputError } from "../lib/core/errors.ts";
import { hashFile } from "../lib/core/hash.ts";
import { loadEvalData } from "../lib/pipeline/plan.ts";
import { readBytes, watchReads } from "../lib/core/text_file.ts";
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

Deno.test("the data file is read once: its hash is of the bytes the loader read", async () => {
  const task = await getTask("climedbench");
  // Files are read through Deno.open (text_file.ts readWhole); Deno.readFile would be a second way in.
  const reads: string[] = [];
  const { open, readFile } = Deno;
  Deno.open = (path, options) => {
    reads.push(String(path));
    return open(path, options);
  };
  Deno.readFile = (path, options) => {
    reads.push(String(path));
    return readFile(path, options);
  };
  let sha256: string;
  try {
    sha256 = (await loadEvalData(task, CLIMED)).sha256;
  } finally {
    Object.assign(Deno, { open, readFile });
  }
  assertEquals(reads.filter((path) => path === CLIMED).length, 1);
  assertEquals(sha256, await hashFile(CLIMED));
});

Deno.test("watchReads: the digest of the watched path's last read while open, nothing for other paths", async () => {
  await withTempDir("reads", async (dir) => {
    const path = `${dir}/a.txt`;
    await Deno.writeTextFile(path, "first");
    await readBytes(path);
    const watch = watchReads(path);
    const other = watchReads(`${dir}/other.txt`);
    assertEquals(watch.sha256, undefined);
    await Deno.writeTextFile(path, "second");
    await readBytes(path);
    assertEquals(await watch.sha256, await hashFile(path));
    assertEquals(other.sha256, undefined);
    watch.stop();
    other.stop();
    const done = await watch.sha256;
    await Deno.writeTextFile(path, "third");
    await readBytes(path);
    assertEquals(await watch.sha256, done);
  });
});

Deno.test("a file nobody watches is read without hashing it", async () => {
  await withTempDir("reads", async (dir) => {
    const path = `${dir}/a.txt`;
    await Deno.writeTextFile(path, "text");
    const digest = crypto.subtle.digest;
    let digests = 0;
    crypto.subtle.digest = ((...args: Parameters<typeof digest>) => {
      digests++;
      return digest.apply(crypto.subtle, args);
    }) as typeof digest;
    try {
      await readBytes(path);
    } finally {
      crypto.subtle.digest = digest;
    }
    assertEquals(digests, 0);
  });
});
