/**
 * Keyset pagination of the run store's reads: every row once, in key order, across page boundaries, as objects
 * (`pages`), as arrays (`arrayPages`) or as lines concatenated a page at a time (`linePages`).
 * @module
 */
import { assertEquals, assertThrows } from "@std/assert";
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

/** A table whose first key repeats seven times (pages of 3 or 4 end inside its ties), with non-ASCII values. */
function tiedTable(): SqliteConnection {
  const db = new SqliteConnection(":memory:");
  db.db.exec("CREATE TABLE t (a TEXT NOT NULL, b INTEGER NOT NULL, v TEXT, PRIMARY KEY (a, b))");
  const insert = db.prepare("INSERT INTO t VALUES (?, ?, ?)");
  for (const a of ["x", "m", "\u{1F600}", "a", "\uE000"]) {
    for (let b = 7; b > 0; b--) insert.run(a, b, b % 3 ? `${a}·${b}` : null);
  }
  return db;
}

Deno.test("arrayPages() yields every row once in key order as arrays of the columns asked, in their order", () => {
  const db = tiedTable();
  try {
    const expected = db.prepare("SELECT v, b, a FROM t ORDER BY a, b").all().map((r) => [r.v, r.b, r.a]);
    for (const size of [1, 3, 4, 7, 100]) {
      const paged = take(
        db.arrayPages({ table: "t", columns: ["v", "b", "a"], keys: ["a", "b"] }, size),
        1000,
      );
      assertEquals(paged, expected, `page size ${size}`);
    }
    // The same SQL read as objects elsewhere is not turned into arrays by it.
    const [row] = db.prepare("SELECT v, b, a FROM t ORDER BY a, b LIMIT ?").all(1);
    assertEquals([Array.isArray(row), row.a, row.b, row.v], [false, "a", 1, "a·1"]);
    assertThrows(() => [...db.arrayPages({ table: "t", columns: ["v"], keys: ["a"] })], Error, "key a");
    db.db.exec("DELETE FROM t");
    assertEquals([...db.arrayPages({ table: "t", columns: ["a", "b"], keys: ["a", "b"] })], []);
  } finally {
    db.close();
  }
});

Deno.test("linePages() yields every row's line once, in key order, a page of lines per byte array", () => {
  const db = tiedTable();
  try {
    const line = "a || '|' || b || '|' || coalesce(v, '-') || char(10)";
    const rows = db.prepare(`SELECT ${line} AS l FROM t ORDER BY a, b`).all().map((r) => String(r.l));
    const decoder = new TextDecoder("utf-8", { fatal: true });
    for (const size of [1, 3, 4, 7, 35, 100]) {
      const pages = take(db.linePages({ table: "t", line, keys: ["a", "b"] }, size), 1000);
      assertEquals(pages.map((p) => decoder.decode(p)).join(""), rows.join(""), `page size ${size}`);
      // Every page but the last holds `size` lines; none is empty.
      assertEquals(pages.length, Math.ceil(rows.length / size), `pages of ${size}`);
      for (const [i, page] of pages.entries()) {
        const lines = decoder.decode(page).split("\n").length - 1;
        assertEquals(lines, i < pages.length - 1 ? size : rows.length - size * (pages.length - 1));
      }
    }
    for (const size of [0, 2.5, Number.NaN]) {
      assertThrows(
        () => [...db.linePages({ table: "t", line, keys: ["a"] }, size)],
        RangeError,
        "at least one row",
      );
      assertThrows(() => [...db.arrayPages({ table: "t", columns: ["a"], keys: ["a"] }, size)], RangeError);
      assertThrows(() => [...db.pages({ table: "t", keys: ["a"] }, size)], RangeError);
    }
    db.db.exec("DELETE FROM t");
    assertEquals([...db.linePages({ table: "t", line, keys: ["a", "b"] })], []);
  } finally {
    db.close();
  }
});
