/**
 * `parseFlags` (lib/cli/args.ts) reads arguments as `node:util`'s `parseArgs` did (strict, positionals allowed),
 * held side by side on the argument shapes the commands take; it differs only where it says it does.
 * @module
 */
import { assertEquals, assertThrows } from "@std/assert";
import { parseArgs } from "node:util";
import { type FlagOption, parseFlags } from "../lib/cli/args.ts";
import { ConfigError } from "../lib/core/errors.ts";

const OPTIONS: Record<string, FlagOption> = {
  out: { type: "string", short: "o" },
  model: { type: "string" },
  ablation: { type: "string", multiple: true },
  "no-render": { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  help: { type: "boolean", short: "h" },
};

const SHAPES: string[][] = [
  [],
  ["climedbench"],
  ["climedbench", "--model", "m", "--out", "runs/x"],
  ["--model=m", "climedbench", "--no-render"],
  ["--ablation", "cot", "--ablation=role", "--ablation", "fewshot:3"],
  ["--model", "a", "--model", "b"],
  ["-o", "dir", "-q", "x"],
  ["-odir"],
  ["-h"],
  ["--help", "llmeval-med"],
  ["a", "--", "--model", "b", "-q"],
  ["-", "--out", "-"],
  ["--model="],
  ["--out", "a=b=c"],
];

Deno.test("parseFlags reads every shape of arguments as node:util's parseArgs does", () => {
  const nodeOptions = Object.fromEntries(
    Object.entries(OPTIONS).map(([name, o]) => [name, { ...o, multiple: o.multiple ?? false }]),
  );
  for (const args of SHAPES) {
    const expected = parseArgs({ args, options: nodeOptions, allowPositionals: true, strict: true });
    const actual = parseFlags(args, OPTIONS);
    assertEquals(
      { values: actual.values, positionals: actual.positionals },
      { values: { ...expected.values }, positionals: expected.positionals },
      JSON.stringify(args),
    );
  }
});

Deno.test("parseFlags takes a value that starts with one dash, which parseArgs calls ambiguous", () => {
  assertThrows(() =>
    parseArgs({ args: ["--model", "-5"], options: { model: { type: "string" } }, strict: true })
  );
  assertEquals(parseFlags(["--model", "-5"], OPTIONS).values, { model: "-5" });
});

Deno.test("parseFlags: an unknown flag, a missing value or a value given to a switch is one line", () => {
  for (
    const [args, message] of [
      [["--modle", "m"], "unknown option --modle"],
      [["-x"], "unknown option -x"],
      [["--model"], "--model expects a value"],
      [["--model", "--out", "d"], "--model expects a value"],
      [["--quiet=yes"], '--quiet takes no value, got "--quiet=yes"'],
    ] as const
  ) {
    const err = assertThrows(() => parseFlags(args, OPTIONS), ConfigError);
    assertEquals(err.message, message);
  }
});
