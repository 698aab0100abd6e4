/**
 * The code version recorded in run manifests.
 * @module
 */
import { projectPath } from "./fs.ts";

let cached: Promise<{ commit: string; dirty: boolean }> | undefined;

/**
 * Returns `{ commit, dirty }` of the project's git checkout, or `{ commit: "unknown" }` outside one; asked of
 * git once per process (a reproduce run records it in every run's manifest).
 */
export function codeVersion(): Promise<{ commit: string; dirty: boolean }> {
  return cached ??= readCodeVersion();
}

async function readCodeVersion(): Promise<{ commit: string; dirty: boolean }> {
  const root = projectPath();
  const run = async (args: string[]) => {
    const out = await new Deno.Command("git", { args, cwd: root, stdout: "piped", stderr: "null" }).output();
    if (!out.success) throw new Error("git failed");
    return new TextDecoder().decode(out.stdout).trim();
  };
  // Both asked at once: a run's start waits for the slower, not for the two in turn.
  const [commit, status] = await Promise.allSettled([
    run(["rev-parse", "HEAD"]),
    run(["status", "--porcelain", "--untracked-files=no"]),
  ]);
  if (commit.status === "rejected" || status.status === "rejected") {
    return { commit: "unknown", dirty: false };
  }
  return { commit: commit.value, dirty: status.value.length > 0 };
}
