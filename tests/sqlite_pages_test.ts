/** Keyset pagination of the run store's reads: every row once, in key order, across page boundaries. */
import { assertEquals } from "@std/assert";
import { SqliteConnection } from "../lib/store/sqlite.ts";

/** The first `limit` items of `items` (a paging that repeats rows then fails the test instead of hanging). */
function take<T>(items: Iterable<T>, limit: number): T[] {
  const out: T[] = [];
  for (const item of items) {
    if (out.length === limit) break;
    out.push(item);
  }
  return out;
}

Deno.test("pages() yields every row once in key order, pages cutting through ties of the first key", () => {
  const db = new SqliteConnection(":memory:");
  try {
    db.db.exec(
      "CREATE TABLE t (a TEXT NOT NULL, b INTEGER NOT NULL, c TEXT NOT NULL, v TEXT, PRIMARY KEY (a, c, b))",
    );
    const insert = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
    const rows: [string, number, string][] = [];
    // Seven rows share each first key, so a page of 3 or 4 ends inside a run of ties.
    for (const a of ["x", "m", "a"]) {
      for (let b = 7; b > 0; b--) for (const c of ["p", "q"]) rows.push([a, b, c]);
    }
    for (const [a, b, c] of rows) insert.run(a, b, c, `${a}${b}${c}`);
    insert.run("z", 1, "p", null);
    const expected = db.prepare("SELECT * FROM t WHERE c = 'p' ORDER BY a, b").all();
    for (const size of [1, 3, 4, 7, 100]) {
      const paged = take(
        db.pages({ table: "t", where: "c = ?", params: ["p"], keys: ["a", "b"] }, size),
        1000,
      );
      assertEquals(paged, expected, `page size ${size}`);
    }
    const all = take(db.pages({ table: "t", columns: "a, b, c", keys: ["a", "b", "c"] }, 5), 1000);
    assertEquals(all.length, rows.length + 1);
    assertEquals(all, db.prepare("SELECT a, b, c FROM t ORDER BY a, b, c").all());
  } finally {
    db.close();
  }
});
