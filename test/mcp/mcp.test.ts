/**
 * `airflow-state-mcp` driven by the MCP SDK's own client over stdio (dist/mcp.js in a child
 * process): its tools answer what the CLI answers for the same files, and `fix` writes nothing
 * unless asked.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { runCli } from "../cli/harness";
import { fromRoot } from "../support/paths";
import { TempFolder } from "../support/tempFolder";

const MCP = fromRoot("dist", "mcp.js");

/** AS101: a datetime stored as is, which `.isoformat()` fixes safely. */
const DAG = `from datetime import datetime, timezone

from airflow.sdk import DAG, Asset, task

ORDERS = Asset("s3://lake/orders")

with DAG("orders"):

    @task(outlets=[ORDERS])
    def load(asset_state_store=None):
        store = asset_state_store[ORDERS]
        store.set("watermark", datetime.now(tz=timezone.utc))
`;

const CLEAN = `print("no airflow here")
`;

interface TextContent {
  type: "text";
  text: string;
}

function texts(result: Awaited<ReturnType<Client["callTool"]>>): string[] {
  return (result.content as TextContent[]).map((part) => part.text);
}

describe("the MCP server over stdio", () => {
  let folder: TempFolder;
  let client: Client;

  before(async () => {
    assert.ok(fs.existsSync(MCP), `${MCP} is missing: run \`npm run build\` first`);
    folder = new TempFolder("mcp-");
    folder.write("dags/orders.py", DAG);
    folder.write("dags/clean.py", CLEAN);
    client = new Client({ name: "airflow-state-mcp-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MCP], cwd: folder.root, stderr: "pipe" }));
  });

  after(async () => {
    await client?.close();
    folder?.remove();
  });

  test("offers lint, review and fix, each with a description and an input schema", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["fix", "lint", "review"]);
    for (const tool of tools) {
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} has a description`);
      assert.ok(tool.inputSchema.properties && "paths" in tool.inputSchema.properties, `${tool.name} takes paths`);
    }
    assert.equal(tools.find((tool) => tool.name === "lint")!.annotations?.readOnlyHint, true);
  });

  test("lint answers the CLI's JSON for the same files", async () => {
    const result = await client.callTool({ name: "lint", arguments: { paths: ["dags"] } });
    assert.notEqual(result.isError, true);
    const [json] = texts(result);
    const cli = runCli(["--format", "json", "--no-cache", "dags"], folder.root);
    assert.equal(json, cli.stdout);
    const findings = JSON.parse(json) as { path: string; code: string }[];
    assert.ok(findings.some((finding) => finding.code === "AS101" && finding.path === "dags/orders.py"), json);
  });

  test("lint takes --select and --ignore as lists of codes or prefixes", async () => {
    const selected = JSON.parse(texts(await client.callTool({ name: "lint", arguments: { paths: ["dags/orders.py"], select: ["AS101"] } }))[0]) as { code: string }[];
    assert.ok(selected.length > 0);
    assert.ok(selected.every((finding) => finding.code === "AS101"));
    const ignored = JSON.parse(texts(await client.callTool({ name: "lint", arguments: { paths: ["dags/orders.py"], ignore: ["AS101"] } }))[0]) as { code: string }[];
    assert.ok(ignored.every((finding) => finding.code !== "AS101"));
  });

  test("review answers the CLI's Markdown review", async () => {
    const [markdown] = texts(await client.callTool({ name: "review", arguments: { paths: ["dags/orders.py"] } }));
    assert.equal(markdown, runCli(["--format", "review", "dags/orders.py"], folder.root).stdout);
    assert.match(markdown, /AS101/);
  });

  test("fix shows the safe fixes as a diff that git applies, and writes nothing", async () => {
    const [diff] = texts(await client.callTool({ name: "fix", arguments: { paths: ["dags"] } }));
    assert.equal(fs.readFileSync(folder.file("dags/orders.py"), "utf8"), DAG, "the file is unchanged");
    assert.match(diff, /^--- a\/dags\/orders\.py\n\+\+\+ b\/dags\/orders\.py\n@@ /);
    assert.doesNotMatch(diff, /clean\.py/);

    // What the CLI's --fix writes, in a copy, is what the diff makes of the file.
    const copy = new TempFolder("mcp-fixed-");
    try {
      copy.write("dags/orders.py", DAG);
      runCli(["--fix", "--no-cache", "dags"], copy.root);
      const expected = fs.readFileSync(copy.file("dags/orders.py"), "utf8");
      assert.notEqual(expected, DAG);
      copy.write("dags/orders.py", DAG);
      execFileSync("git", ["apply", "-"], { cwd: copy.root, input: diff });
      assert.equal(fs.readFileSync(copy.file("dags/orders.py"), "utf8"), expected);
    } finally {
      copy.remove();
    }
  });

  test("fix writes the files when asked, exactly as the diff shows, and the fixed finding is gone", async () => {
    const before = JSON.parse(texts(await client.callTool({ name: "lint", arguments: { paths: ["dags/orders.py"] } }))[0]) as { code: string; fix: { safe: boolean } | null }[];
    const safelyFixable = before.filter((finding) => finding.fix?.safe).map((finding) => finding.code);
    assert.ok(safelyFixable.includes("AS101"));
    const [shown] = texts(await client.callTool({ name: "fix", arguments: { paths: ["dags/orders.py"], write: true } }));
    assert.match(shown, /Written to 1 file\./);
    const written = fs.readFileSync(folder.file("dags/orders.py"), "utf8");
    const copy = new TempFolder("mcp-written-");
    try {
      copy.write("dags/orders.py", DAG);
      execFileSync("git", ["apply", "-"], { cwd: copy.root, input: shown.slice(0, shown.indexOf("\nWritten to")) });
      assert.equal(written, fs.readFileSync(copy.file("dags/orders.py"), "utf8"));
    } finally {
      copy.remove();
    }
    const after = JSON.parse(texts(await client.callTool({ name: "lint", arguments: { paths: ["dags/orders.py"] } }))[0]) as { code: string; fix: { safe: boolean } | null }[];
    assert.ok(!after.some((finding) => finding.fix?.safe), JSON.stringify(after));
    const [again] = texts(await client.callTool({ name: "fix", arguments: { paths: ["dags/orders.py"] } }));
    assert.equal(again, "No safe fix applies to these files.\n");
  });

  test("a path that does not exist is an error naming it, and the server keeps serving", async () => {
    const result = await client.callTool({ name: "lint", arguments: { paths: ["missing.py"] } });
    assert.equal(result.isError, true);
    assert.match(texts(result)[0], /missing\.py: no such file or folder/);
    const unknownRule = await client.callTool({ name: "lint", arguments: { select: ["XX9"] } });
    assert.equal(unknownRule.isError, true);
    assert.match(texts(unknownRule)[0], /XX9/);
    const [review] = texts(await client.callTool({ name: "review", arguments: { paths: ["dags/clean.py"] } }));
    assert.match(review, /clean\.py/);
  });
});
