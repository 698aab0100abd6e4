/**
 * Writing JSON Lines files a chunk at a time: the log export's files, `samples.jsonl`, and the calls file a run
 * writes as it goes.
 * @module
 */

/** Characters of lines gathered before they are written out (the file's lines are never all in memory). */
const CHUNK_CHARS = 1 << 16;
/** Bytes a gathered chunk is encoded into: UTF-8 takes at most three bytes for each UTF-16 unit. */
const CHUNK_BYTES = 3 * CHUNK_CHARS;

/**
 * A JSON Lines file written a chunk of lines at a time, each chunk encoded into one reused buffer (a chunk too
 * long for it, from a long line, into a buffer of its own).
 */
export class JsonLinesFile {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  readonly #buffer = new Uint8Array(CHUNK_BYTES);
  #chunk = "";

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Creates (or empties) the file at `path`. */
  static async create(path: string): Promise<JsonLinesFile> {
    return new JsonLinesFile(await Deno.open(path, { write: true, create: true, truncate: true }));
  }

  /** Adds `line` (one JSON text, without its newline); written out once a chunk is gathered. */
  async append(line: string): Promise<void> {
    this.#chunk += line + "\n";
    if (this.#chunk.length >= CHUNK_CHARS) await this.flush();
  }

  /** Writes out the lines gathered so far. */
  async flush(): Promise<void> {
    const chunk = this.#chunk;
    this.#chunk = "";
    const bytes = 3 * chunk.length <= this.#buffer.length ? this.#buffer : new Uint8Array(3 * chunk.length);
    const { written } = this.#encoder.encodeInto(chunk, bytes);
    for (let at = 0; at < written;) at += await this.#file.write(bytes.subarray(at, written));
  }

  /** Closes the file (what is not flushed is lost: {@linkcode flush} first). */
  close(): void {
    this.#file.close();
  }
}
