/**
 * Notes beside files derived from a run store, saying what each was derived from, so that a file nothing it
 * depends on changed since is kept rather than written again: the log's `calls.jsonl`, `outputs.jsonl` and
 * `scores.jsonl`, and each condition's `samples.jsonl`. A note is a small JSON object: the mark it was written
 * for (a format number and what identifies its sources) and the file's size and modification time, which see an
 * edit of the file. On a file system whose times are coarse (FAT, some network shares) an edit of the same size
 * within the same tick is not seen.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";
import { removeQuietly } from "../core/fs.ts";

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

/** Path of the note beside the file at `path`: `.NAME.json` in the file's directory. */
export function notePath(path: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash + 1)}.${path.slice(slash + 1)}.json`;
}

/**
 * Keeps the file at `path` when `keep` allows it and its note says it was written for `mark`, and returns
 * `true`. Otherwise removes the note first (a write cut short is never kept), runs `write`, notes the file as
 * written for `mark` (without a mark it is always written, and not noted) and returns `false`.
 */
export async function writeUnlessNoted(
  path: string,
  mark: FileMark | undefined,
  write: () => Promise<void>,
  keep = true,
): Promise<boolean> {
  const note = notePath(path);
  if (keep && mark && await fileIsNoted(path, note, mark)) return true;
  removeQuietly(note);
  await write();
  if (mark) await noteFile(path, note, mark);
  return false;
}
