/**
 * code-server 4.100.3 (VS Code 1.100.3, the newest release that runs on Node 20), installed on first
 * use into a cache folder rather than as a devDependency (279 MB that only this harness needs),
 * and started on a free local port.
 *
 * Installing needs Debian's libkrb5-dev (a native module links Kerberos) and ripgrep: the
 * @vscode/ripgrep postinstall would download rg from GitHub, so its download cache is seeded with
 * the system's rg first. npm 11 runs no dependency install scripts unless approved, so the cache
 * folder gets its own package.json approving code-server's (which builds VS Code's native modules).
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { log } from "./prepare";

const VERSION = "4.100.3";
const RIPGREP_CACHE = path.join(os.tmpdir(), "vscode-ripgrep-cache-1.15.11");
const RIPGREP_ARCHIVE = "ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz";
const START_TIMEOUT_MS = 60_000;

function cacheFolder(): string {
  const cacheHome = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(cacheHome, "airflow-state-store", `code-server-${VERSION}`);
}

function entryOf(folder: string): string {
  return path.join(folder, "node_modules", "code-server", "out", "node", "entry.js");
}

function which(command: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** The path of code-server's entry script, installing it into the cache folder when missing. */
export function ensureCodeServer(): string {
  const folder = cacheFolder();
  if (fs.existsSync(path.join(folder, ".complete"))) return entryOf(folder);
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error("npm run test:e2e installs code-server for linux-x64 only; elsewhere use npm run test:vscode");
  }
  const rg = which("rg");
  if (!rg) throw new Error("ripgrep is missing: apt-get install -y ripgrep libkrb5-dev chromium");

  log(`installing code-server ${VERSION} into ${folder} (one to two minutes, once)`);
  seedRipgrepCache(rg);
  // Installed next to the final folder and renamed when complete, so an interrupted install never
  // looks usable and two runs installing at once do not write into each other.
  const partial = `${folder}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  const manifest = {
    private: true,
    description: "code-server for the real-editor tests of airflow-state-store (npm run test:e2e)",
    // argon2 (password hashing) is loaded at start-up even with --auth none; its install script
    // fetches or compiles its native binding.
    allowScripts: { "code-server": true, argon2: true },
  };
  fs.writeFileSync(path.join(partial, "package.json"), JSON.stringify(manifest, null, 2));
  const installed = spawnSync("npm", ["install", `code-server@${VERSION}`, "--unsafe-perm", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: partial,
    stdio: "inherit",
    // code-server's postinstall runs `npx node-gyp`, which asks before downloading unless told yes;
    // as root it refuses to run unless unsafe-perm is set (npm 11 ignores that setting otherwise).
    env: { ...process.env, npm_config_yes: "true" },
  });
  if (installed.status !== 0 || !fs.existsSync(entryOf(partial))) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw new Error(`installing code-server ${VERSION} failed (exit ${installed.status}); see the npm output above`);
  }
  fs.writeFileSync(path.join(partial, ".complete"), new Date().toISOString());
  // A folder without the marker was left by an install made by hand or by an older harness.
  if (fs.existsSync(folder) && !fs.existsSync(path.join(folder, ".complete"))) fs.rmSync(folder, { recursive: true, force: true });
  try {
    fs.renameSync(partial, folder);
  } catch (error) {
    // Another run finished first: use its copy.
    fs.rmSync(partial, { recursive: true, force: true });
    if (!fs.existsSync(path.join(folder, ".complete"))) throw error;
  }
  return entryOf(folder);
}

/** The @vscode/ripgrep postinstall takes rg from this archive instead of downloading it. */
function seedRipgrepCache(rg: string): void {
  const archive = path.join(RIPGREP_CACHE, RIPGREP_ARCHIVE);
  if (fs.existsSync(archive)) return;
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "rg-"));
  try {
    fs.copyFileSync(rg, path.join(staging, "rg"));
    fs.chmodSync(path.join(staging, "rg"), 0o755);
    fs.mkdirSync(RIPGREP_CACHE, { recursive: true });
    execFileSync("tar", ["-czf", `${archive}.tmp`, "-C", staging, "rg"]);
    fs.renameSync(`${archive}.tmp`, archive);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

export interface CodeServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** HOST:PORT, the authority of vscode-remote:// URIs for paths on this machine. */
  authority: string;
  /** Resolves when the process exits, with its exit code. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  entry: string;
  workspace: string;
  /** Holds user data, extensions and config: nothing of the user's own set-up is read. */
  stateDir: string;
  /** .vsix files installed before the server starts, as `code-server --install-extension` does. */
  install: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
}

/** Where code-server keeps the installed extensions of a server started with `stateDir`. */
export function extensionsDirOf(stateDir: string): string {
  return path.join(stateDir, "extensions");
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const port = await freePort();
  const authority = `127.0.0.1:${port}`;
  const userData = path.join(options.stateDir, "user-data");
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  const settings = {
    // A quiet workbench: no welcome page or release notes over the editors the suite opens.
    "workbench.startupEditor": "none",
    "update.showReleaseNotes": false,
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    // Built-in extensions would otherwise try to send telemetry, failing without internet.
    "telemetry.telemetryLevel": "off",
  };
  fs.writeFileSync(path.join(userData, "User", "settings.json"), JSON.stringify(settings, null, 2));
  const env = {
    ...process.env,
    ...options.env,
    XDG_CONFIG_HOME: path.join(options.stateDir, "config"),
    XDG_DATA_HOME: path.join(options.stateDir, "data"),
  };
  const profile = ["--user-data-dir", userData, "--extensions-dir", extensionsDirOf(options.stateDir)];
  for (const vsix of options.install) {
    const installed = spawnSync(process.execPath, [options.entry, ...profile, "--install-extension", vsix], { env, encoding: "utf8" });
    fs.appendFileSync(options.logFile, `${installed.stdout}${installed.stderr}`);
    if (installed.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (exit ${installed.status}); see ${options.logFile}`);
  }
  const args = [
    options.entry,
    "--bind-addr", authority,
    "--auth", "none",
    "--disable-telemetry",
    "--disable-update-check",
    // Otherwise the window opens in Restricted Mode and no extension activates.
    "--disable-workspace-trust",
    ...profile,
    options.workspace,
  ];
  const logStream = fs.openSync(options.logFile, "a");
  const child: ChildProcess = spawn(process.execPath, args, {
    env,
    stdio: ["ignore", logStream, logStream],
    // Its own process group, so stopping it also stops the extension host and pty host it starts.
    detached: true,
  });
  fs.closeSync(logStream);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(child, "SIGTERM");
    const timedOut = await Promise.race([exited.then(() => false), delay(5000).then(() => true)]);
    if (timedOut) signalGroup(child, "SIGKILL");
    await exited;
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode} while starting; see ${options.logFile}`);
    if (await answers(`http://${authority}/healthz`)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer within ${START_TIMEOUT_MS / 1000} s; see ${options.logFile}`);
    }
    await delay(250);
  }
  return { url: `http://${authority}`, authority, exited, stop };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    return response.ok;
  } catch {
    return false;
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
