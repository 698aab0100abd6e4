/**
 * Stable hashing: the run store and the manifest address things by the SHA-256 of a canonical form.
 * @module
 */

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

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4, 4.2.2). */
// deno-fmt-ignore
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The initial hash value (FIPS 180-4, 5.3.3). */
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** The message schedule and the running hash of {@linkcode compress}, reused (hashing is synchronous). */
const words = new Int32Array(64);
const state = new Int32Array(8);

/** Folds the 64-byte block of `bytes` at `at` into `state` (FIPS 180-4, 6.2.2), in 32-bit integer arithmetic. */
function compress(bytes: Uint8Array, at: number): void {
  const w = words;
  for (let i = 0; i < 16; i++, at += 4) {
    w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15], y = w[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = state[0], b = state[1], c = state[2], d = state[3];
  let e = state[4], f = state[5], g = state[6], h = state[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

/** Bytes of the buffer a string's UTF-8 is encoded into (reused: hashing is synchronous). */
const SCRATCH_BYTES = 1 << 16;
const scratch = new Uint8Array(SCRATCH_BYTES);
const encoder = new TextEncoder();
/** The last one or two blocks: the message's remaining bytes, the padding and the length (reused). */
const tail = new Uint8Array(128);
const tailView = new DataView(tail.buffer);
/** Two hex digits of each byte value. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Returns the lowercase hex SHA-256 of a string (as UTF-8) or bytes. Written out in TypeScript rather than taken
 * from `node:crypto`, whose module cost ~17 ms of every start; for the short texts it is given (call
 * keys, seeds, small files) it takes a few microseconds. Data sets and downloads go through
 * {@linkcode digestHex}.
 */
export function sha256Hex(data: string | Uint8Array): string {
  let bytes: Uint8Array;
  let n: number;
  if (typeof data === "string") {
    // At most 3 bytes per UTF-16 unit: a text that may not fit the reused buffer is encoded on its own.
    if (data.length * 3 <= SCRATCH_BYTES) {
      bytes = scratch;
      n = encoder.encodeInto(data, scratch).written;
    } else {
      bytes = encoder.encode(data);
      n = bytes.length;
    }
  } else {
    bytes = data;
    n = data.length;
  }
  state.set(H0);
  const whole = n - (n % 64);
  for (let at = 0; at < whole; at += 64) compress(bytes, at);
  tail.fill(0);
  tail.set(bytes.subarray(whole, n));
  tail[n - whole] = 0x80;
  const end = n - whole < 56 ? 64 : 128;
  tailView.setUint32(end - 8, Math.floor(n / 0x20000000));
  tailView.setUint32(end - 4, (n * 8) >>> 0);
  compress(tail, 0);
  if (end === 128) compress(tail, 64);
  let hex = "";
  for (let i = 0; i < 8; i++) {
    const v = state[i];
    hex += HEX[(v >>> 24) & 255] + HEX[(v >>> 16) & 255] + HEX[(v >>> 8) & 255] + HEX[v & 255];
  }
  return hex;
}

/** Returns the lowercase hex SHA-256 of `bytes` by the runtime's native Web Crypto (fast for large data). */
export async function digestHex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (const byte of digest) hex += HEX[byte];
  return hex;
}

/** Returns the hex SHA-256 of the canonical JSON form of `value`. */
export function hashValue(value: unknown): string {
  return sha256Hex(stableStringify(value));
}

/** Returns the hex SHA-256 of a file's bytes. */
export async function hashFile(path: string): Promise<string> {
  return await digestHex(await Deno.readFile(path));
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
