/**
 * Writing JSON Lines files a chunk at a time: the log export's files, `samples.jsonl`, and the calls file a run
 * writes as it goes; lines given as text or already encoded.
 * @module
 */

/** Characters of lines gathered before they are written out (the file's lines are never all in memory). */
const CHUNK_CHARS = 1 << 16;
/** Bytes a gathered chunk is encoded into: UTF-8 takes at most three bytes for each UTF-16 unit. */
const CHUNK_BYTES = 3 * CHUNK_CHARS;

/**
 * A JSON Lines file written a chunk of lines at a time, each chunk encoded into one reused buffer (a chunk too
 * long for it, from a long line, into a buffer of its own). Written asynchronously ({@linkcode append},
 * {@linkcode flush}) or, by a writer that cannot wait (rows written as a run goes), synchronously
 * ({@linkcode appendSync}, {@linkcode flushSync}).
 */
export class JsonLinesFile {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  readonly #buffer = new Uint8Array(CHUNK_BYTES);
  #chunk = "";
  #closed = false;

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Creates (or empties) the file at `path`. */
  static async create(path: string): Promise<JsonLinesFile> {
    return new JsonLinesFile(await Deno.open(path, OPEN_OPTIONS));
  }

  /** Creates (or empties) the file at `path`, synchronously. */
  static createSync(path: string): JsonLinesFile {
    return new JsonLinesFile(Deno.openSync(path, OPEN_OPTIONS));
  }

  /** Adds `line` (one JSON text, without its newline); written out once a chunk is gathered. */
  async append(line: string): Promise<void> {
    if (this.#add(line)) await this.flush();
  }

  /** Adds `line` as {@linkcode append} does, writing a gathered chunk synchronously. */
  appendSync(line: string): void {
    if (this.#add(line)) this.flushSync();
  }

  /** Writes out the lines gathered so far. */
  async flush(): Promise<void> {
    await writeAll(this.#file, this.#take());
  }

  /** Writes out the lines gathered so far, synchronously. */
  flushSync(): void {
    const bytes = this.#take();
    for (let at = 0; at < bytes.length;) at += this.#file.writeSync(bytes.subarray(at));
  }

  /** Closes the file, once (what is not flushed is lost: flush first). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }

  /** Gathers `line`; returns whether a chunk is gathered. */
  #add(line: string): boolean {
    this.#chunk += line + "\n";
    return this.#chunk.length >= CHUNK_CHARS;
  }

  /** The lines gathered so far, encoded (into the reused buffer when they fit), and gathering afresh. */
  #take(): Uint8Array {
    const chunk = this.#chunk;
    this.#chunk = "";
    const bytes = 3 * chunk.length <= this.#buffer.length ? this.#buffer : new Uint8Array(3 * chunk.length);
    return bytes.subarray(0, this.#encoder.encodeInto(chunk, bytes).written);
  }
}

/** How a {@linkcode JsonLinesFile} is opened: created, or emptied. */
const OPEN_OPTIONS: Deno.OpenOptions = { write: true, create: true, truncate: true };

/** Writes all of `bytes` to `file`. */
async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
}

/**
 * Writes lines already encoded (each item the UTF-8 bytes of one or more whole lines, newlines included, as
 * SQLite builds them) to `path`, gathered into chunks of {@linkcode CHUNK_BYTES} as a {@linkcode JsonLinesFile}
 * gathers its lines.
 */
export async function writeLineBytes(path: string, lines: Iterable<Uint8Array>): Promise<void> {
  using file = await Deno.open(path, OPEN_OPTIONS);
  const chunk = new Uint8Array(CHUNK_BYTES);
  let used = 0;
  for (const line of lines) {
    if (used + line.length > chunk.length) {
      await writeAll(file, chunk.subarray(0, used));
      used = 0;
    }
    if (line.length > chunk.length) await writeAll(file, line);
    else {
      chunk.set(line, used);
      used += line.length;
    }
  }
  await writeAll(file, chunk.subarray(0, used));
}
