/**
 * SHA-256 as lib/core/hash.ts writes it out: the FIPS 180-2 examples, every length around the block and padding
 * boundaries, UTF-8 of Chinese, Persian and lone surrogates, and agreement with `node:crypto` and Web Crypto.
 * @module
 */
import { assertEquals } from "@std/assert";
import { createHash } from "node:crypto";
import { digestHex, sha256Hex } from "../lib/core/hash.ts";

/** The reference: `node:crypto` (which the command line no longer loads). */
function reference(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

Deno.test("sha256Hex gives the FIPS 180-2 example digests", () => {
  assertEquals(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assertEquals(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assertEquals(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  assertEquals(
    sha256Hex("a".repeat(1_000_000)),
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
  );
});

Deno.test("sha256Hex agrees with node:crypto on bytes and text of every length up to five blocks", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const units = ["a", "Z", " ", "\n", "中", "文", "س", "ه", "\u200c", "😀", "\ud800", "\udfff", "é"];
  for (let length = 0; length <= 320; length++) {
    const bytes = Uint8Array.from({ length }, () => Math.floor(next() * 256));
    assertEquals(sha256Hex(bytes), reference(bytes), `${length} bytes`);
    const text = Array.from({ length }, () => units[Math.floor(next() * units.length)]).join("");
    assertEquals(sha256Hex(text), reference(text), `${length} units of text`);
  }
  // A text longer than the reused encoding buffer, then a short one again.
  const long = "长".repeat(30_000) + "x";
  assertEquals(sha256Hex(long), reference(long));
  assertEquals(sha256Hex("abc"), reference("abc"));
});

Deno.test("digestHex (Web Crypto) agrees with sha256Hex", async () => {
  for (const length of [0, 55, 56, 64, 1000, 1 << 20]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 255);
    assertEquals(await digestHex(bytes), sha256Hex(bytes), `${length} bytes`);
  }
});
