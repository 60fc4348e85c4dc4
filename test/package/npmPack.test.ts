/**
 * `npm pack` gives a package whose `npx airflow-state-lint` works in a fresh folder: the tarball
 * holds the CLI bundle and the rule pages its SARIF links to, and installed into a temporary
 * folder without network access (`npm ci --offline`, with the versions this repository locks, from
 * npm's cache) it lints the examples as the repository's own build does.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { allRules } from "../../server/src/engine";
import { CLI } from "../cli/harness";
import { fromRoot } from "../support/paths";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const manifest = JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8")) as { name: string; version: string; license: string; bin: Record<string, string>; engines: object; dependencies: Record<string, string> };

interface LockEntry {
  version: string;
  resolved?: string;
  dev?: boolean;
  [key: string]: unknown;
}

function run(command: string, args: readonly string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 180_000, env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });
  if (result.error) throw result.error;
  return result;
}

/**
 * A lock file for a folder that depends on the tarball only, pinning its dependencies to the
 * versions this repository locks. With their registry addresses, npm takes each from its cache by
 * integrity and asks no registry.
 */
function freshLock(tarball: string): object {
  const lock = JSON.parse(fs.readFileSync(fromRoot("package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
  const reference = `file:${path.basename(tarball)}`;
  const integrity = `sha512-${createHash("sha512").update(fs.readFileSync(tarball)).digest("base64")}`;
  const packages: Record<string, object> = {
    "": { name: "fresh", version: "1.0.0", dependencies: { [manifest.name]: reference } },
    [`node_modules/${manifest.name}`]: { version: manifest.version, resolved: reference, integrity, license: manifest.license, dependencies: manifest.dependencies, bin: manifest.bin, engines: manifest.engines },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === "" || entry.dev) continue;
    const name = key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    packages[key] = { ...entry, resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split("/").pop()}-${entry.version}.tgz` };
  }
  return { name: "fresh", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

describe("the npm package (npm pack)", () => {
  let folder: string;
  let tarball: string;
  let files: string[];

  before(() => {
    folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "airflow-state-lint-pack-")));
    // dist/ is built already (npm test builds it); `prepare` would build it again under the other tests' feet.
    const packed = run(NPM, ["pack", "--json", "--ignore-scripts", "--pack-destination", folder], fromRoot());
    assert.equal(packed.status, 0, packed.stderr);
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(folder, info.filename);
    files = info.files.map((file) => file.path).sort();
  });

  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  test("holds the CLI and MCP server bundles, the rule pages and their index, README, licence and changelog, and nothing else", () => {
    const pages = allRules.map((rule) => `docs/rules/${rule.code}.md`);
    assert.deepEqual(files, ["CHANGELOG.md", "LICENSE", "README.md", "dist/cli.js", "dist/mcp.js", ...pages, "docs/rules/README.md", "package.json"].sort());
    assert.equal(manifest.bin["airflow-state-lint"], "./dist/cli.js");
    assert.equal(manifest.bin["airflow-state-mcp"], "./dist/mcp.js");
    assert.match(fs.readFileSync(CLI, "utf8"), /^#!\/usr\/bin\/env node\n/);
    assert.match(fs.readFileSync(path.join(path.dirname(CLI), "mcp.js"), "utf8"), /^#!\/usr\/bin\/env node\n/);
  });

  test("installed without network access in a fresh folder, `npx airflow-state-lint` lints the examples as the repository's build does", () => {
    const fresh = path.join(folder, "fresh");
    fs.mkdirSync(fresh);
    fs.copyFileSync(tarball, path.join(fresh, path.basename(tarball)));
    const lock = freshLock(tarball);
    fs.writeFileSync(path.join(fresh, "package-lock.json"), JSON.stringify(lock, null, 2));
    fs.writeFileSync(path.join(fresh, "package.json"), JSON.stringify((lock as { packages: Record<string, object> }).packages[""], null, 2));
    const installed = run(NPM, ["ci", "--offline"], fresh);
    assert.equal(installed.status, 0, installed.stderr);
    fs.cpSync(fromRoot("examples"), path.join(fresh, "examples"), { recursive: true });

    const linted = run(NPM, ["exec", "--offline", "--", "airflow-state-lint", "--no-cache", "--format", "json", "examples"], fresh);
    const reference = run(process.execPath, [CLI, "--no-cache", "--format", "json", "examples"], fresh);
    assert.equal(linted.status, 1, linted.stderr);
    assert.ok(JSON.parse(linted.stdout).length > 10, "the examples have findings");
    assert.equal(linted.stdout, reference.stdout);

    // SARIF links each rule to its page in the installed package.
    const sarif = run(NPM, ["exec", "--offline", "--", "airflow-state-lint", "--no-cache", "--format", "sarif", "examples/dags"], fresh);
    const rules = JSON.parse(sarif.stdout).runs[0].tool.driver.rules as { id: string; helpUri: string }[];
    const installedPackage = path.join(fresh, "node_modules", manifest.name);
    for (const rule of rules) assert.equal(rule.helpUri, pathToFileURL(path.join(installedPackage, "docs", "rules", `${rule.id}.md`)).href);
  });
});
