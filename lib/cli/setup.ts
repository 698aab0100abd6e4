/**
 * `deno task setup`: makes sure the machine has what the tests and the main job need — Jupyter with the Deno
 * kernel (notebooks) and Chromium with CJK fonts (figure export). Installs with apt when running as root;
 * otherwise stops with the exact command to run. Idempotent and quick when everything is there.
 * @module
 */
import { pathExists } from "../core/fs.ts";
import { findChromium } from "../report/chromium.ts";

/** Whether some Chromium figure export can use is there (`$CHROME_PATH` or a Debian path). */
function hasChromium(): Promise<boolean> {
  try {
    findChromium();
    return Promise.resolve(true);
  } catch {
    return Promise.resolve(false);
  }
}

/** Debian packages the project needs, each with what proves it is present. */
const APT_PACKAGES: { pkg: string; present: () => Promise<boolean> }[] = [
  { pkg: "chromium", present: hasChromium },
  ...[
    ["fonts-noto-cjk", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"],
    ["jupyter-nbconvert", "/usr/bin/jupyter-nbconvert"],
    ["jupyter-client", "/usr/bin/jupyter-kernelspec"],
    ["python3-nbclient", "/usr/lib/python3/dist-packages/nbclient"],
    ["python3-ipykernel", "/usr/lib/python3/dist-packages/ipykernel"],
  ].map(([pkg, path]) => ({ pkg, present: () => pathExists(path) })),
];

async function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<boolean> {
  const status = await new Deno.Command(cmd, {
    args,
    env,
    stdout: "inherit",
    stderr: "inherit",
    stdin: "null",
  }).output();
  return status.success;
}

async function isRoot(): Promise<boolean> {
  try {
    const out = await new Deno.Command("id", { args: ["-u"], stdout: "piped" }).output();
    return new TextDecoder().decode(out.stdout).trim() === "0";
  } catch {
    return false;
  }
}

async function kernelInstalled(): Promise<boolean> {
  try {
    const out = await new Deno.Command("jupyter", {
      args: ["kernelspec", "list", "--json"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    if (!out.success) return false;
    const specs = JSON.parse(new TextDecoder().decode(out.stdout)).kernelspecs ?? {};
    const deno = specs.deno;
    if (!deno) return false;
    // The kernel must point at a Deno that still exists (npx caches can move).
    const kernel = JSON.parse(await Deno.readTextFile(`${deno.resource_dir}/kernel.json`));
    return await pathExists(kernel.argv?.[0] ?? "");
  } catch {
    return false;
  }
}

/** Installs what is missing; returns a process exit code. */
export async function setup(): Promise<number> {
  const missing: string[] = [];
  for (const { pkg, present } of APT_PACKAGES) if (!(await present())) missing.push(pkg);
  if (missing.length) {
    const command =
      `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${
        missing.join(" ")
      }`;
    if (!(await isRoot())) {
      console.error(`setup: missing Debian packages ${missing.join(", ")}. Run as root:\n  ${command}`);
      return 1;
    }
    console.error(`setup: installing ${missing.join(", ")} with apt-get`);
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    if (!(await run("apt-get", ["update", "-q"], env))) {
      console.error(`setup: apt-get update failed; run by hand:\n  ${command}`);
      return 1;
    }
    if (!(await run("apt-get", ["install", "-y", "-q", "--no-install-recommends", ...missing], env))) {
      console.error(`setup: apt-get install failed; run by hand:\n  ${command}`);
      return 1;
    }
  }
  if (!(await kernelInstalled())) {
    console.error("setup: registering the Deno Jupyter kernel");
    if (!(await run(Deno.execPath(), ["jupyter", "--install", "--force"]))) {
      console.error(
        `setup: kernel registration failed; run by hand:\n  ${Deno.execPath()} jupyter --install`,
      );
      return 1;
    }
  }
  console.error("setup: Chromium, CJK fonts, Jupyter and the Deno kernel are ready");
  return 0;
}

if (import.meta.main) Deno.exit(await setup());
