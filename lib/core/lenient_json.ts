/**
 * Reading JSON as Python's `json` module writes it: bare `NaN`, `Infinity` and `-Infinity` tokens become
 * `null` (reported, not hidden), and syntax errors are reported by line and column.
 * @module
 */
import { InputError } from "./errors.ts";

/** What {@linkcode parseLenientJson} found besides the value. */
export interface LenientJsonResult {
  /** The parsed value. */
  value: unknown;
  /** How many bare NaN/Infinity tokens were read as `null`. */
  nonFiniteTokens: number;
  /** 1-based line of each object that opens at container depth d (index d; the root container is depth 0). */
  objectLines: number[][];
}

/** Returns 1-based `{ line, column }` of character offset `pos` in `text`. */
function lineColumn(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let lastBreak = -1;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lastBreak = i;
    }
  }
  return { line, column: pos - lastBreak };
}

/**
 * Parses `text` as JSON, accepting bare NaN/Infinity/-Infinity outside strings as `null`. Throws
 * {@linkcode InputError} naming `file`, line and column on a syntax error.
 */
export function parseLenientJson(text: string, file: string): LenientJsonResult {
  const out: string[] = [];
  const objectLines: number[][] = [];
  let nonFiniteTokens = 0;
  let inString = false;
  let depth = 0;
  let line = 1;
  let chunkStart = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\n") line++;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") {
      if (ch === "{") (objectLines[depth] ??= []).push(line);
      depth++;
    } else if (ch === "}" || ch === "]") depth--;
    else if (ch === "N" || ch === "I" || ch === "-") {
      const token = ["NaN", "Infinity", "-Infinity"].find((t) => text.startsWith(t, i));
      if (token) {
        out.push(text.slice(chunkStart, i), "null");
        nonFiniteTokens++;
        i += token.length - 1;
        chunkStart = i + 1;
      }
    }
  }
  out.push(text.slice(chunkStart));
  const cleaned = out.join("");
  try {
    return { value: JSON.parse(cleaned), nonFiniteTokens, objectLines };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Located in the text as written (NaN/Infinity included), so line and column are the file's.
    const where = lineColumn(text, jsonErrorOffset(text));
    throw new InputError(
      { file, record: `line ${where.line}, column ${where.column}` },
      `not valid JSON (${message.replace(/,\s*".*$/s, "").slice(0, 80)})`,
    );
  }
}

/**
 * Returns the character offset at which a recursive-descent JSON reader first fails on `text`; bare `NaN`,
 * `Infinity` and `-Infinity` are read as values, as the lenient parser reads them.
 */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    } else if (ch === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    } else if (ch === '"') string();
    else if (ch === "t") literal("true");
    else if (ch === "f") literal("false");
    else if (ch === "n") literal("null");
    else if (ch === "N") literal("NaN");
    else {
      const m = text.slice(i).match(/^-?(?:Infinity|(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/);
      if (!m) fail();
      i += m![0].length;
    }
  };
  try {
    value();
    ws();
    return i < text.length ? i : text.length;
  } catch (pos) {
    return typeof pos === "number" ? Math.min(pos, text.length) : 0;
  }
}
