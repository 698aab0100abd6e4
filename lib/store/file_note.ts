/**
 * Notes beside files derived from a run store, saying what each was derived from, so that a file nothing it
 * depends on changed since is kept rather than written again: the log's `calls.jsonl` and each condition's
 * `samples.jsonl`. A note is a small JSON object: the mark it was written for (a format number and what
 * identifies its sources) and the file's size and modification time, which see an edit of the file. On a file
 * system whose times are coarse (FAT, some network shares) an edit of the same size within the same tick is
 * not seen.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";

/** What a file was derived from: a format number and the values that identify its sources. */
export type FileMark = Readonly<Record<string, string | number | null>>;

/**
 * Whether the file at `path` is the one its note at `notePath` says was written for `mark`: every value of
 * `mark` equals the note's, and the file's size and modification time are as noted. A missing or unreadable
 * note or file is not.
 */
export async function fileIsNoted(path: string, notePath: string, mark: FileMark): Promise<boolean> {
  try {
    const note = JSON.parse(await readTextStrict(notePath)) as Record<string, unknown>;
    const info = await Deno.stat(path);
    return Object.entries(mark).every(([key, value]) => note[key] === value) &&
      note.bytes === info.size && note.mtimeMs === (info.mtime?.getTime() ?? null);
  } catch {
    return false;
  }
}

/** Writes the note at `notePath` that the file at `path`, just written, was derived from `mark`. */
export async function noteFile(path: string, notePath: string, mark: FileMark): Promise<void> {
  const info = await Deno.stat(path);
  const note = { ...mark, bytes: info.size, mtimeMs: info.mtime?.getTime() ?? null };
  await Deno.writeTextFile(notePath, JSON.stringify(note) + "\n");
}
