/**
 * Stable hashing: the run store and the manifest address things by the SHA-256 of a canonical form.
 * @module
 */
import { createHash } from "node:crypto";

/** Returns JSON with object keys sorted at every depth, so equal values always serialise identically. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Returns the lowercase hex SHA-256 of a string or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Returns the hex SHA-256 of the canonical JSON form of `value`. */
export function hashValue(value: unknown): string {
  return sha256Hex(stableStringify(value));
}

/** Returns the hex SHA-256 of a file's bytes. */
export async function hashFile(path: string): Promise<string> {
  return sha256Hex(await Deno.readFile(path));
}

/**
 * Returns the hex SHA-256 of a file's bytes, or of a directory's files (not its subdirectories): the hash of
 * one `name<TAB>sha256` line per file, in name order — so a data set split over several files has one hash.
 */
export async function hashPath(path: string): Promise<string> {
  if (!(await Deno.stat(path)).isDirectory) return await hashFile(path);
  const lines: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    if (entry.isFile) lines.push(`${entry.name}\t${await hashFile(`${path}/${entry.name}`)}`);
  }
  return sha256Hex(lines.sort().join("\n"));
}
