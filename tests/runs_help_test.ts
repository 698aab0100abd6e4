/**
 * `import-ratings --help`, `collect --help` and `tag --help` each print their own page, explaining every flag
 * the command accepts, and do nothing else.
 */
import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import type { CommandSpec } from "../lib/cli/args.ts";
import { COLLECT_SPEC, collectCommand, IMPORT_RATINGS_SPEC, importRatingsCommand } from "../lib/cli/runs.ts";
import { TAG_SPEC, tagCommand } from "../lib/cli/tag.ts";

/** Runs `command(args)` and returns its exit code and what it printed with console.log. */
async function printed(command: (args: string[]) => Promise<number>, args: string[]) {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => lines.push(parts.join(" "));
  try {
    const code = await command(args);
    return { code, text: lines.join("\n") };
  } finally {
    console.log = log;
  }
}

const COMMANDS: [string, (args: string[]) => Promise<number>, CommandSpec][] = [
  ["import-ratings", importRatingsCommand, IMPORT_RATINGS_SPEC],
  ["collect", collectCommand, COLLECT_SPEC],
  ["tag", tagCommand, TAG_SPEC],
];

Deno.test("import-ratings, collect and tag: --help prints the command's own page with every flag explained", async () => {
  for (const [name, command, spec] of COMMANDS) {
    for (const args of [["--help"], ["-h"], ["somewhere", "--help"]]) {
      const { code, text } = await printed(command, args);
      assertEquals(code, 0, name);
      assert(text.startsWith(`usage: deno task ${name} `), `${name}: ${text.split("\n")[0]}`);
      // Not the overview of every command.
      assert(!text.includes("deno task eval <benchmark>"), name);
      for (const [flag, { help }] of Object.entries(spec.flags)) {
        const options = text.slice(text.indexOf("\noptions:\n")).split("\n");
        const line = options.find((l) => l.startsWith(`  --${flag} `) || l === `  --${flag}`);
        assert(line, `${name}: --${flag} is listed`);
        assertStringIncludes(line, help.split(" ").slice(0, 3).join(" "), `${name} --${flag}`);
      }
    }
  }
  const { text } = await printed(importRatingsCommand, ["--help"]);
  for (const term of ["instance_id", "Clinical_impact", "wide:", "long:", "pmq-test-0001"]) {
    assertStringIncludes(text, term);
  }
});
