/**
 * Test helper: the written reply corpora (`tests/fixtures/**\/<prefix>*.jsonl`), one JSON object a line, read
 * the same way by the tests that check every reading and by the benchmarks that time them.
 * @module
 */

const FIXTURES = new URL("./fixtures/", import.meta.url).pathname;

/** Returns the rows of every `<prefix>*.jsonl` in `fixtures/<folder>`, files in name order. */
export async function readCorpus<T>(folder: string, prefix: string): Promise<T[]> {
  const dir = `${FIXTURES}${folder}`;
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.startsWith(prefix) && entry.name.endsWith(".jsonl")) {
      names.push(entry.name);
    }
  }
  const rows: T[] = [];
  for (const name of names.sort()) {
    const text = (await Deno.readTextFile(`${dir}/${name}`)).trim();
    rows.push(...text.split("\n").map((line) => JSON.parse(line) as T));
  }
  return rows;
}
