/**
 * How a command ends when it is run as a program: its exit code, or for an error one line on standard error —
 * exit code 2 for bad settings or input (a one-line {@linkcode ConfigError}, {@linkcode InputError}, or a path
 * the user gave that is missing, a directory or not permitted), 3 with the stack for anything else. Every
 * message is redacted.
 * @module
 */
import { ConfigError, InputError } from "../core/errors.ts";
import { redact } from "../providers/transport/redact.ts";

/** Deno's file-system errors a user causes with a path (missing, a directory, not permitted): one line each. */
function isPathError(err: unknown): err is Error {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory ||
    err instanceof Deno.errors.NotADirectory || err instanceof Deno.errors.PermissionDenied ||
    err instanceof Deno.errors.AlreadyExists;
}

/** Returns the exit code of `err` after printing it: 2 with one `error:` line for a user's mistake, else 3. */
export function reportFailure(err: unknown): number {
  if (
    err instanceof ConfigError || err instanceof InputError || isPathError(err) ||
    (err instanceof TypeError && "code" in err)
  ) {
    console.error(`error: ${redact(err.message)}`);
    return 2;
  }
  console.error(redact(err instanceof Error ? (err.stack ?? err.message) : String(err)));
  return 3;
}

/** Runs `command` with the program's arguments and exits with its code (or the code of its failure). */
export async function exitWith(command: (args: string[]) => Promise<number>): Promise<never> {
  let code: number;
  try {
    code = await command(Deno.args);
  } catch (err) {
    code = reportFailure(err);
  }
  Deno.exit(code);
}
