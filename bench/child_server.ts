/**
 * Starting a fake server as a child process for a benchmark: the child prints one line once it listens (its
 * URL, or JSON holding it), which is returned with a way to stop the child.
 * @module
 */

/** A server running in a child process. */
export interface ChildServer {
  /** The first line the child printed. */
  line: string;
  /** Stops the child and waits for it. */
  close(): Promise<void>;
}

/** Runs `deno run -A <script> ...args` and waits for its first line of standard output. */
export async function startChildServer(script: string, args: string[]): Promise<ChildServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before printing its first line`);
    text += value;
  }
  reader.releaseLock();
  return {
    line: text.trim().split("\n")[0],
    close: async () => {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}
