/**
 * The .vsix holds what the installed extension needs and nothing else: the bundles, the native
 * parsers' prebuilds for every platform (and no locally compiled build/ folder, which
 * node-gyp-build would load first), the rule docs the diagnostics link to, README, licence, icon,
 * and whatever snippets and grammars package.json contributes.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { builtinModules } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import * as assert from "node:assert/strict";
import { fromRoot } from "../support/paths";
import { packVsix } from "./vsix";
import { extractZip, readZip, ZipEntry } from "./zip";

const PLATFORMS = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"];
const NATIVE_PACKAGES = ["tree-sitter", "tree-sitter-python"];
/** node-gyp-build finds and loads the prebuild for the running platform; both parsers require it. */
const PACKAGES_OUTSIDE_THE_BUNDLES = [...NATIVE_PACKAGES, "node-gyp-build"];
const BUNDLES = ["dist/client.js", "dist/server.js", "dist/workerMain.js"];

const manifest = JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8")) as { icon?: string; main: string; contributes?: object };

/** Every `path` and `icon` string under `contributes` that names a file (not a `$(codicon)`). */
function filesReferencedBy(value: unknown, key = ""): string[] {
  if (typeof value === "string") return (key === "path" || key === "icon") && !value.startsWith("$(") ? [path.posix.normalize(value)] : [];
  if (Array.isArray(value)) return value.flatMap((item) => filesReferencedBy(item, key));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([name, item]) => filesReferencedBy(item, name));
  return [];
}

describe("the packaged extension (.vsix)", () => {
  let folder: string;
  let vsix: string;
  let entries: ZipEntry[];
  /** Paths inside the extension, relative to its root (vsce puts it under extension/). */
  let files: string[];

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "airflow-state-store-vsix-"));
    vsix = await packVsix(path.join(folder, "extension.vsix"));
    entries = readZip(vsix);
    files = entries.filter((entry) => entry.name.startsWith("extension/")).map((entry) => entry.name.slice("extension/".length));
    const megabytes = (fs.statSync(vsix).size / 1024 / 1024).toFixed(2);
    console.log(`# ${path.basename(vsix)}: ${megabytes} MB, ${entries.length} files`);
  });

  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  test("holds the manifest, the client and server bundles, and no other dist file", () => {
    assert.ok(files.includes("package.json"));
    assert.equal(manifest.main, "./dist/client.js");
    assert.deepEqual(files.filter((file) => file.startsWith("dist/")).sort(), BUNDLES);
  });

  test("the bundles load nothing from node_modules but the packaged native parsers", () => {
    const allowed = new Set(["vscode", ...NATIVE_PACKAGES, ...builtinModules]);
    for (const bundle of BUNDLES) {
      const text = entries.find((entry) => entry.name === `extension/${bundle}`)!.read().toString("utf8");
      const required = new Set([...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1].replace(/^node:/, "")));
      const outside = [...required].filter((name) => !allowed.has(name));
      assert.deepEqual(outside, [], `${bundle} requires modules the package does not ship`);
    }
  });

  test("ships both native parsers' prebuilds for all six platforms", () => {
    for (const name of NATIVE_PACKAGES) {
      for (const platform of PLATFORMS) {
        const prebuild = `node_modules/${name}/prebuilds/${platform}/${name}.node`;
        assert.ok(files.includes(prebuild), `${prebuild} is packaged`);
      }
    }
  });

  test("ships no build/ folder, no parser sources, and no other package from node_modules", () => {
    assert.deepEqual(files.filter((file) => /(^|\/)build\//.test(file)), []);
    assert.deepEqual(files.filter((file) => /^node_modules\/[^/]+\/(src|vendor)\//.test(file)), []);
    const packages = new Set(files.filter((file) => file.startsWith("node_modules/")).map((file) => file.split("/")[1]));
    assert.deepEqual([...packages].sort(), [...PACKAGES_OUTSIDE_THE_BUNDLES].sort());
  });

  test("the packaged parsers load from the package's own node_modules and parse Python", () => {
    const extracted = path.join(folder, "extracted");
    extractZip(vsix, extracted);
    const script = [
      "const Parser = require('./node_modules/tree-sitter');",
      "const Python = require('./node_modules/tree-sitter-python');",
      "const parser = new Parser(); parser.setLanguage(Python);",
      "process.stdout.write(parser.parse('x = 1\\n').rootNode.toString());",
    ].join("\n");
    const result = spawnSync(process.execPath, ["-e", script], { cwd: path.join(extracted, "extension"), encoding: "utf8" });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^\(module \(expression_statement \(assignment/);
  });

  test("ships README, changelog, licence, and every rule page the diagnostics link to", () => {
    for (const file of ["readme.md", "changelog.md", "LICENSE.txt"]) assert.ok(files.includes(file), `${file} is packaged`);
    const rulePages = fs.readdirSync(fromRoot("docs", "rules")).filter((name) => name.endsWith(".md"));
    assert.ok(rulePages.length > 1);
    assert.deepEqual(files.filter((file) => file.startsWith("docs/rules/")).sort(), rulePages.map((name) => `docs/rules/${name}`).sort());
  });

  test("ships the images the README shows (its relative links resolve inside the installed extension)", () => {
    const readme = fs.readFileSync(fromRoot("README.md"), "utf8");
    const images = [...readme.matchAll(/!\[[^\]]*\]\((?!https?:)([^)\s]+)\)/g)].map((match) => path.posix.normalize(match[1]));
    for (const image of images) assert.ok(files.includes(image), `${image} is packaged`);
  });

  test("ships the icon, a 128x128 PNG", () => {
    assert.ok(manifest.icon, "package.json names an icon");
    const icon = entries.find((entry) => entry.name === `extension/${manifest.icon}`);
    assert.ok(icon, `${manifest.icon} is packaged`);
    const png = icon.read();
    assert.equal(png.subarray(1, 4).toString("ascii"), "PNG");
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  });

  test("ships every file package.json refers to (snippets, grammars, view icons, ...)", () => {
    const referenced = filesReferencedBy(manifest.contributes ?? {});
    for (const file of referenced) assert.ok(files.includes(file), `${file} is packaged`);
  });

  test("ships no TypeScript sources, source maps, tests, examples or build inputs", () => {
    const unwanted = files.filter((file) =>
      /\.(ts|map)$/.test(file) ||
      /^(client|server|test|out|examples|\.ci|\.vscode)\//.test(file) ||
      ["esbuild.mjs", "tsconfig.json", "package-lock.json", ".vscodeignore"].includes(file),
    );
    assert.deepEqual(unwanted, []);
  });
});
