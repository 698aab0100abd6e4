/**
 * Writes the bundle's data files: each a classic script `medevalView.chunk("name", payload)`, because a page
 * opened from `file://` may load scripts but not fetch files. Large data is gzip-compressed and base64-encoded
 * (the viewer inflates it with `DecompressionStream`); the small meta object is written as plain JSON.
 * @module
 */
import { gzipSync } from "node:zlib";
import { Buffer } from "node:buffer";

/** Name of the global registration function every data file calls. */
export const REGISTER = "medevalView.chunk";

/** Returns the file name of chunk `name` under `data/` (`r0/s3` → `r0/s3.js`). */
export function chunkFile(name: string): string {
  return `${name}.js`;
}

/** Writes chunks into `<out>/data/` and counts the bytes written. */
export class ChunkWriter {
  /** The bundle's data directory. */
  readonly dir: string;
  /** Bytes written so far. */
  bytes = 0;
  /** Chunks written so far. */
  files = 0;

  /** Writes into `<out>/data/`. */
  constructor(out: string) {
    this.dir = `${out}/data`;
  }

  /** Writes `value` as a compressed JSON chunk named `name` (e.g. `r0/s12`). */
  async compressed(name: string, value: unknown): Promise<void> {
    await this.compressedScript(name, JSON.stringify(value));
  }

  /** Writes the text `text` as a compressed chunk named `name` (JSON, or a script the viewer runs). */
  async compressedScript(name: string, text: string): Promise<void> {
    const packed = Buffer.from(gzipSync(new TextEncoder().encode(text), { level: 6 })).toString("base64");
    await this.#write(name, `${REGISTER}(${JSON.stringify(name)},"${packed}");\n`);
  }

  /** Writes `value` as a plain JSON chunk (small data read before anything else). */
  async plain(name: string, value: unknown): Promise<void> {
    await this.#write(name, `${REGISTER}(${JSON.stringify(name)},${JSON.stringify(value)});\n`);
  }

  async #write(name: string, text: string): Promise<void> {
    const path = `${this.dir}/${chunkFile(name)}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const bytes = new TextEncoder().encode(text);
    await Deno.writeFile(path, bytes);
    this.bytes += bytes.length;
    this.files++;
  }
}
