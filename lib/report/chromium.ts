/**
 * Where Chromium is: kept apart from the figure renderer so `setup` and the run plan can ask without loading
 * puppeteer.
 * @module
 */
import { ConfigError } from "../core/errors.ts";

/** Returns the Chromium executable: `$CHROME_PATH`, else the Debian paths; throws with the install command. */
export function findChromium(): string {
  const isFile = (path: string) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  };
  const chosen = Deno.env.get("CHROME_PATH");
  if (chosen) {
    if (isFile(chosen)) return chosen;
    throw new ConfigError(`CHROME_PATH=${chosen} is not a file: point it at Chromium, or pass --no-render`);
  }
  const found = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find(isFile);
  if (found) return found;
  throw new ConfigError(
    "no Chromium found for figure export: run `deno task setup` (or `apt-get install -y chromium`), set CHROME_PATH, or pass --no-render",
  );
}
