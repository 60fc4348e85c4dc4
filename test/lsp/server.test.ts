/**
 * Protocol-level tests: the built language server (dist/server.js) as a child process, driven over
 * stdio (and once over Node IPC, as VS Code starts it) by a real LSP client connection. AS102 (`None`
 * stored as a value) is the rule exercised; AS301 checks the git baseline and workspace trust.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { CodeAction, Diagnostic, DiagnosticSeverity, Range, TextDocumentSyncKind } from "vscode-languageserver-protocol/node";
import { git as gitIn, resumableOperator } from "../support/git";
import { fromRoot } from "../support/paths";
import { fileUri, LspSession } from "./session";

const DAG = `from airflow.sdk import task


@task
def remember(task_state_store=None):
    task_state_store.set("cursor", None)
    return 1
`;

/** The range of the first `needle` on `line` of `text`. */
function rangeOf(text: string, line: number, needle: string): Range {
  const character = text.split("\n")[line].indexOf(needle);
  assert.ok(character >= 0, `"${needle}" is not on line ${line}`);
  return { start: { line, character }, end: { line, character: character + needle.length } };
}

function summary(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code}@${d.range.start.line}:${d.range.start.character}`);
}

function actions(result: unknown): CodeAction[] {
  assert.ok(Array.isArray(result), "codeAction must answer with an array");
  return result as CodeAction[];
}

describe("language server over stdio", () => {
  let session: LspSession;
  before(async () => {
    session = await LspSession.start({ initializationOptions: { trusted: false } });
  });
  after(() => session.dispose());

  test("initialize announces incremental sync and the code action kinds", async () => {
    const { capabilities } = await session.initializeResult;
    const sync = capabilities.textDocumentSync;
    assert.ok(typeof sync === "object" && sync !== null);
    assert.equal(sync.change, TextDocumentSyncKind.Incremental);
    assert.equal(sync.openClose, true);
    assert.deepEqual(capabilities.codeActionProvider && typeof capabilities.codeActionProvider === "object" ? capabilities.codeActionProvider.codeActionKinds : undefined, [
      "quickfix",
      "refactor.rewrite",
      "source.fixAll.airflowStateStore",
    ]);
  });

  test("didOpen publishes AS102 with code, range, severity, rule link and source", async () => {
    const uri = "file:///dags/open.py";
    const published = await session.open(uri, DAG);
    assert.equal(published.version, 1);
    assert.equal(published.diagnostics.length, 1);
    const [diagnostic] = published.diagnostics;
    assert.equal(diagnostic.code, "AS102");
    assert.deepEqual(diagnostic.range, rangeOf(DAG, 5, "None"));
    assert.equal(diagnostic.severity, DiagnosticSeverity.Error);
    assert.equal(diagnostic.source, "airflow-state-store");
    assert.equal(diagnostic.codeDescription?.href, pathToFileURL(fromRoot("docs", "rules", "AS102.md")).href);
    assert.match(String(diagnostic.message), /ValueError/);
    const scopes = session.configurationRequests.flatMap((request) => request.items);
    assert.ok(scopes.some((item) => item.section === "airflowStateStore" && item.scopeUri === uri), "settings are pulled for the document");
  });

  test("incremental changes add and remove diagnostics, version by version", async () => {
    const uri = "file:///dags/incremental.py";
    await session.open(uri, DAG);
    // Type a second faulty call below the first.
    const added = await session.change(uri, [{ range: { start: { line: 6, character: 0 }, end: { line: 6, character: 0 } }, text: '    task_state_store.set("page", None)\n' }]);
    assert.equal(added.version, 2);
    assert.deepEqual(summary(added.diagnostics), ["AS102@5:35", "AS102@6:33"]);
    // Delete the first line: one diagnostic left, now on line 5.
    const removed = await session.change(uri, [{ range: { start: { line: 5, character: 0 }, end: { line: 6, character: 0 } }, text: "" }]);
    assert.equal(removed.version, 3);
    assert.deepEqual(summary(removed.diagnostics), ["AS102@5:33"]);
    assert.equal(session.text(uri).split("\n")[5], '    task_state_store.set("page", None)');
  });

  test("several changes in one didChange are applied in order", async () => {
    const uri = "file:///dags/batched.py";
    await session.open(uri, DAG);
    const published = await session.change(uri, [
      { range: rangeOf(DAG, 5, "None"), text: "{}" },
      { range: { start: { line: 6, character: 0 }, end: { line: 6, character: 0 } }, text: '    task_state_store.set("x", None)\n' },
    ]);
    assert.deepEqual(summary(published.diagnostics), ["AS102@6:30"]);
  });

  test("quick fix: its WorkspaceEdit, applied by the client, leaves the file clean", async () => {
    const uri = "file:///dags/quickfix.py";
    const { diagnostics } = await session.open(uri, DAG);
    const offered = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } }));
    assert.deepEqual(
      offered.map((a) => [a.title, a.kind]),
      [
        ['Airflow State Store (AS102): replace with task_state_store.delete("cursor")', "quickfix"],
        ["Airflow State Store (AS102): suppress on this line", "quickfix"],
        ["Airflow State Store (AS102): suppress in this file", "quickfix"],
        ["Airflow State Store (AS102): show documentation", "quickfix"],
      ],
    );
    const fix = offered[0];
    assert.notEqual(fix.isPreferred, true, "AS102's fix changes behaviour, so it is not preferred");
    assert.deepEqual(fix.diagnostics, diagnostics);
    const after = await session.applyEdit(uri, fix.edit!);
    assert.deepEqual(after.diagnostics, []);
    assert.equal(session.text(uri).split("\n")[5], '    task_state_store.delete("cursor")');
  });

  test("suppress action appends `# noqa: AS102`, which silences the line", async () => {
    const uri = "file:///dags/noqa.py";
    const { diagnostics } = await session.open(uri, DAG);
    const suppress = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } })).find((a) => a.title === "Airflow State Store (AS102): suppress on this line");
    assert.ok(suppress?.edit);
    const after = await session.applyEdit(uri, suppress.edit);
    assert.equal(session.text(uri).split("\n")[5], '    task_state_store.set("cursor", None)  # noqa: AS102');
    assert.deepEqual(after.diagnostics, []);
  });

  test("suppress action extends an existing `# noqa:` list", async () => {
    const uri = "file:///dags/noqa-list.py";
    const text = DAG.replace('set("cursor", None)', 'set("cursor", None)  # noqa: AS101  (kept on purpose)');
    const { diagnostics } = await session.open(uri, text);
    assert.equal(diagnostics.length, 1);
    const suppress = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } })).find((a) => a.title === "Airflow State Store (AS102): suppress on this line");
    const after = await session.applyEdit(uri, suppress!.edit!);
    assert.equal(session.text(uri).split("\n")[5], '    task_state_store.set("cursor", None)  # noqa: AS101, AS102  (kept on purpose)');
    assert.deepEqual(after.diagnostics, []);
  });

  test("suppress in this file adds `# airflow-state-lint: noqa: AS102` after the shebang, which silences the file", async () => {
    const uri = "file:///dags/noqa-file.py";
    const text = `#!/usr/bin/env python\n${DAG}`;
    const { diagnostics } = await session.open(uri, text);
    const suppress = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } })).find((a) => a.title === "Airflow State Store (AS102): suppress in this file");
    assert.ok(suppress?.edit);
    const after = await session.applyEdit(uri, suppress.edit);
    assert.deepEqual(session.text(uri).split("\n").slice(0, 3), ["#!/usr/bin/env python", "# airflow-state-lint: noqa: AS102", "from airflow.sdk import task"]);
    assert.deepEqual(after.diagnostics, []);
  });

  test("suppress in this file extends the file's list of codes", async () => {
    const uri = "file:///dags/noqa-file-list.py";
    const { diagnostics } = await session.open(uri, `# airflow-state-lint: noqa: AS101\r\n${DAG}`);
    const suppress = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } })).find((a) => a.title === "Airflow State Store (AS102): suppress in this file");
    const after = await session.applyEdit(uri, suppress!.edit!);
    assert.equal(session.text(uri).split("\n")[0], "# airflow-state-lint: noqa: AS101, AS102\r");
    assert.deepEqual(after.diagnostics, []);
  });

  test("show documentation names the client command that opens the rule's page", async () => {
    const uri = "file:///dags/docs.py";
    const { diagnostics } = await session.open(uri, DAG);
    const show = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } })).find((a) => a.title === "Airflow State Store (AS102): show documentation");
    assert.deepEqual(show?.command, { title: "Airflow State Store (AS102): show documentation", command: "airflowStateStore.showRuleDocumentation", arguments: ["AS102"] });
    assert.equal(show?.edit, undefined);
  });

  test("the lightbulb offers fix-all when a safe fix exists; resolved, it fixes every safe finding", async () => {
    const uri = "file:///dags/lightbulb-fix-all.py";
    const text = fs.readFileSync(fromRoot("test/e2e/workspace/dags/fix_all.py"), "utf8");
    const { diagnostics } = await session.open(uri, text);
    assert.ok(diagnostics.filter((d) => d.code === "AS104").length >= 2, "two safely fixable findings");
    const first = diagnostics.find((d) => d.code === "AS104")!;
    const offered = actions(await session.codeActions(uri, { range: first.range, context: { diagnostics: [first] } }));
    const fixAll = offered.find((a) => a.title === "Airflow State Store: fix all safely fixable problems");
    assert.ok(fixAll, `offered: ${offered.map((a) => a.title).join(" | ")}`);
    assert.equal(fixAll.kind, "quickfix.airflowStateStore.fixAll");
    assert.equal(fixAll.edit, undefined, "the edit waits until the action is chosen");
    const resolved = await session.resolveCodeAction(fixAll);
    assert.ok(resolved.edit);
    const after = await session.applyEdit(uri, resolved.edit);
    assert.deepEqual(after.diagnostics.filter((d) => d.code === "AS104"), []);
  });

  test("no fix-all in the lightbulb when every fix is unsafe", async () => {
    const uri = "file:///dags/lightbulb-unsafe.py";
    const { diagnostics } = await session.open(uri, DAG);
    const offered = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } }));
    assert.ok(!offered.some((a) => a.title.includes("fix all")));
  });

  test("no suppress action where a comment would land inside a string", async () => {
    const uri = "file:///dags/noqa-string.py";
    const text = DAG.replace('set("cursor", None)', 'set("cursor", None); note = """starts here\n    and ends here"""');
    const { diagnostics } = await session.open(uri, text);
    assert.equal(diagnostics.length, 1);
    const offered = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } }));
    assert.deepEqual(
      offered.map((a) => a.title),
      [
        'Airflow State Store (AS102): replace with task_state_store.delete("cursor")',
        "Airflow State Store (AS102): suppress in this file",
        "Airflow State Store (AS102): show documentation",
      ],
    );
  });

  test("source.fixAll offers nothing when every fix is unsafe", async () => {
    const uri = "file:///dags/fixall-unsafe.py";
    const { diagnostics } = await session.open(uri, DAG);
    assert.equal(diagnostics.length, 1);
    const whole: Range = { start: { line: 0, character: 0 }, end: { line: 7, character: 0 } };
    const offered = actions(await session.codeActions(uri, { range: whole, context: { diagnostics: [], only: ["source.fixAll"] } }));
    assert.deepEqual(offered, []);
  });

  test("`only` filters actions by kind", async () => {
    const uri = "file:///dags/only.py";
    const { diagnostics } = await session.open(uri, DAG);
    const refactors = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics, only: ["refactor"] } }));
    assert.deepEqual(refactors, []);
  });

  test("diagnostics from an older version get no fixes", async () => {
    const uri = "file:///dags/stale.py";
    const { diagnostics } = await session.open(uri, DAG);
    const next = session.nextDiagnostics(uri, 2);
    session.changeWithoutWaiting(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "# a comment\n" }]);
    const offered = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } }));
    assert.deepEqual(offered, [], "the edit was made for version 1 and would land on the wrong line");
    const current = await next;
    assert.equal(actions(await session.codeActions(uri, { range: current.diagnostics[0].range, context: { diagnostics: current.diagnostics } })).length, 4);
  });

  test("a finding kept through edits of another function gets its edits placed where it is now", async () => {
    const uri = "file:///dags/kept-finding.py";
    const text = `from airflow.sdk import task


@task
def first(task_state_store=None):
    return 0


${DAG.split("\n").slice(3).join("\n")}`;
    const opened = await session.open(uri, text);
    assert.deepEqual(summary(opened.diagnostics), ["AS102@10:35"]);
    // Lines added in the first task move the second one's finding, which the lint keeps rather than finds again.
    await session.change(uri, [{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, text: "    a = 1\n    b = 2\n" }]);
    const moved = await session.change(uri, [{ range: { start: { line: 5, character: 4 }, end: { line: 5, character: 5 } }, text: "alpha" }]);
    assert.deepEqual(summary(moved.diagnostics), ["AS102@12:35"]);
    const offered = actions(await session.codeActions(uri, { range: moved.diagnostics[0].range, context: { diagnostics: moved.diagnostics } }));
    const suppress = offered.find((a) => a.title === "Airflow State Store (AS102): suppress on this line");
    assert.ok(suppress?.edit);
    const lineEnd = { line: 12, character: '    task_state_store.set("cursor", None)'.length };
    assert.deepEqual(suppress.edit.documentChanges, [{ textDocument: { uri, version: 3 }, edits: [{ range: { start: lineEnd, end: lineEnd }, newText: "  # noqa: AS102" }] }]);
    const after = await session.applyEdit(uri, offered[0].edit!);
    assert.deepEqual(after.diagnostics, []);
    assert.equal(session.text(uri).split("\n")[12], '    task_state_store.delete("cursor")');
  });

  test("a diagnostic the last lint did not find gets no actions", async () => {
    const uri = "file:///dags/unknown-finding.py";
    const { diagnostics } = await session.open(uri, DAG);
    const elsewhere: Diagnostic = { ...diagnostics[0], range: rangeOf(DAG, 6, "return") };
    assert.deepEqual(actions(await session.codeActions(uri, { range: elsewhere.range, context: { diagnostics: [elsewhere] } })), []);
    const otherCode: Diagnostic = { ...diagnostics[0], code: "AS101" };
    assert.deepEqual(actions(await session.codeActions(uri, { range: otherCode.range, context: { diagnostics: [otherCode] } })), []);
  });

  test("a rule's severity setting applies live, and `off` silences it", async () => {
    const uri = "file:///dags/settings.py";
    await session.open(uri, DAG);
    try {
      let published = session.nextDiagnostics(uri);
      session.changeSettings({ rules: { AS102: "off" } });
      assert.deepEqual((await published).diagnostics, []);
      published = session.nextDiagnostics(uri);
      session.changeSettings({ rules: { AS102: "warning" } });
      assert.deepEqual(
        (await published).diagnostics.map((d) => [d.code, d.severity]),
        [["AS102", DiagnosticSeverity.Warning]],
      );
      published = session.nextDiagnostics(uri);
      session.changeSettings({ enable: false });
      assert.deepEqual((await published).diagnostics, []);
      assert.deepEqual(actions(await session.codeActions(uri, { range: rangeOf(DAG, 5, "None"), context: { diagnostics: [] } })), []);
    } finally {
      const restored = session.nextDiagnostics(uri);
      session.changeSettings({});
      assert.equal((await restored).diagnostics.length, 1);
    }
  });

  test("invalid rule settings are ignored and reported in the log", async () => {
    const uri = "file:///dags/bad-settings.py";
    await session.open(uri, DAG);
    try {
      const published = session.nextDiagnostics(uri);
      session.changeSettings({ rules: { AS102: "loud", as102: "warning" } });
      assert.deepEqual(
        (await published).diagnostics.map((d) => d.severity),
        [DiagnosticSeverity.Warning],
      );
      assert.ok(session.errorLogs().some((message) => message.includes('"AS102": "loud"')));
    } finally {
      const restored = session.nextDiagnostics(uri);
      session.changeSettings({});
      await restored;
    }
  });

  test("a Python file importing nothing from Airflow gets empty diagnostics", async () => {
    const published = await session.open("file:///scripts/plain.py", 'import json\n\nprint(json.dumps({"a": None}))\n');
    assert.deepEqual(published.diagnostics, []);
  });

  test("a half-typed file does not crash the server, which keeps answering", async () => {
    const uri = "file:///dags/typing.py";
    await session.open(uri, DAG);
    let line = "";
    let version = 1;
    for (const piece of ['    task_state_store.set(', '"k', '", ', "None", ")"]) {
      const character = line.length;
      line += piece;
      version = session.changeWithoutWaiting(uri, [{ range: { start: { line: 7, character }, end: { line: 7, character } }, text: piece }]);
    }
    const published = await session.nextDiagnostics(uri, version);
    assert.deepEqual(summary(published.diagnostics), ["AS102@5:35", "AS102@7:30"]);
    const broken = await session.change(uri, [{ range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } }, text: "def (:\n  @@@ ]]\n" }]);
    assert.ok(Array.isArray(broken.diagnostics));
    assert.ok(Array.isArray(await session.codeActions(uri, { range: rangeOf(DAG, 0, "from"), context: { diagnostics: broken.diagnostics } })));
    const garbage = await session.open("file:///dags/garbage.py", "from airflow.sdk import (\n\u0000\ud800 task_state_store.set(((\n");
    assert.ok(Array.isArray(garbage.diagnostics));
    assert.deepEqual(session.errorLogs().filter((message) => /failed|Uncaught|Unhandled/.test(message)), [], "no handler or rule failed");
  });

  test("closing a document clears its diagnostics", async () => {
    const uri = "file:///dags/closed.py";
    await session.open(uri, DAG);
    const cleared = session.nextDiagnostics(uri);
    session.close(uri);
    assert.deepEqual((await cleared).diagnostics, []);
  });

  test("non-Python documents are left alone", async () => {
    const uri = "file:///notes/readme.md";
    const published = session.nextDiagnostics(uri, undefined, { timeoutMs: 300 });
    session.openWithoutWaiting(uri, "task_state_store.set('k', None)\n", 1, "markdown");
    await assert.rejects(published, /no matching diagnostics/);
  });

  test("shutdown and exit end the process with code 0", async () => {
    assert.equal(await session.shutdown(), 0);
  });
});

describe("language server over Node IPC", () => {
  test("publishes diagnostics, answers code actions and exits cleanly", async () => {
    const session = await LspSession.start({ transport: "ipc", initializationOptions: { trusted: false } });
    try {
      const uri = "untitled:Untitled-1";
      const { diagnostics } = await session.open(uri, DAG);
      assert.deepEqual(summary(diagnostics), ["AS102@5:35"]);
      const offered = actions(await session.codeActions(uri, { range: diagnostics[0].range, context: { diagnostics } }));
      assert.equal(offered.length, 4);
      assert.deepEqual((await session.applyEdit(uri, offered[0].edit!)).diagnostics, []);
      assert.equal(await session.shutdown(), 0);
    } finally {
      session.dispose();
    }
  });
});

/** A DAG of more than 50,000 lines whose one finding is on its last lines. */
function hugeDag(): string {
  const block = (i: number) => `\n\n@task(retries=2)\ndef step_${i}(task_state_store=None):\n    cursor = task_state_store.get("cursor", 0)\n    task_state_store.set("cursor", cursor + ${i})\n    return cursor\n`;
  const blocks = Array.from({ length: 50_000 / 7 }, (_, i) => block(i));
  const text = `from airflow.sdk import task\n${blocks.join("")}\n\n@task\ndef last(task_state_store=None):\n    task_state_store.set("cursor", None)\n`;
  assert.ok(text.split("\n").length > 50_000);
  return text;
}

describe("language server on large files", () => {
  test("a file over the size limit is not linted, with one log line", async () => {
    const session = await LspSession.start();
    try {
      const uri = "file:///dags/generated.py";
      const text = DAG + "x = 1\n".repeat(700_000);
      assert.deepEqual((await session.open(uri, text)).diagnostics, []);
      assert.deepEqual((await session.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "# more\n" }])).diagnostics, []);
      assert.equal(session.logs.filter((log) => log.message.includes(`Not checking ${uri}`)).length, 1);
      // Back under the limit, it is checked again.
      const shrunk = await session.change(uri, [{ text: DAG }]);
      assert.deepEqual(summary(shrunk.diagnostics), ["AS102@5:35"]);
    } finally {
      session.dispose();
    }
  });

  test("shutting down while a document is being linted ends the process cleanly", async () => {
    const session = await LspSession.start();
    try {
      // About 15,000 lines: a lint long enough that shutdown arrives in the middle of it.
      const text = hugeDag().split("\n").slice(0, 15_000).join("\n");
      session.openWithoutWaiting("file:///dags/long.py", text);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const code = await session.shutdown();
      assert.equal(code, 0, session.serverStderr);
      assert.doesNotMatch(session.serverStderr, /terminate called|Napi::Error/);
    } finally {
      session.dispose();
    }
  });

  test("lints it in the background while still answering requests", async () => {
    const session = await LspSession.start();
    try {
      const text = hugeDag();
      const uri = "file:///dags/huge.py";
      const published = session.nextDiagnostics(uri, 1, { timeoutMs: 60_000 });
      let diagnosticsArrived = false;
      void published.then(() => (diagnosticsArrived = true));
      session.openWithoutWaiting(uri, text);
      const answered = actions(await session.codeActions(uri, { range: rangeOf(text, 0, "from"), context: { diagnostics: [] } }));
      assert.deepEqual(answered, []);
      assert.equal(diagnosticsArrived, false, "the request was answered while the file was being linted");
      const lines = text.split("\n").length;
      assert.deepEqual(summary((await published).diagnostics), [`AS102@${lines - 2}:35`]);
    } finally {
      session.dispose();
    }
  });

  test("a small document's diagnostics, hover and completion do not wait for a 50,000-line document's lint", async () => {
    const session = await LspSession.start();
    try {
      const events: string[] = [];
      const hugeUri = "file:///dags/huge.py";
      const huge = hugeDag();
      const hugeDiagnostics = session.nextDiagnostics(hugeUri, 1, { timeoutMs: 60_000 }).then((published) => {
        events.push("huge: diagnostics");
        return published;
      });
      session.openWithoutWaiting(hugeUri, huge);
      const smallUri = "file:///dags/small.py";
      const opened = await session.open(smallUri, DAG);
      events.push("small: diagnostics");
      assert.deepEqual(summary(opened.diagnostics), ["AS102@5:35"]);
      await session.hover(smallUri, { line: 5, character: 10 });
      events.push("small: hover");
      await session.completion(smallUri, { line: 5, character: 4 });
      events.push("small: completion");
      const fixed = await session.change(smallUri, [{ range: rangeOf(DAG, 5, "None"), text: "1" }]);
      events.push("small: diagnostics after a change");
      assert.deepEqual(fixed.diagnostics, []);
      const lines = huge.split("\n").length;
      assert.deepEqual(summary((await hugeDiagnostics).diagnostics), [`AS102@${lines - 2}:35`]);
      assert.deepEqual(events, ["small: diagnostics", "small: hover", "small: completion", "small: diagnostics after a change", "huge: diagnostics"]);
    } finally {
      session.dispose();
    }
  });
});

describe("workspace trust and the git baseline", () => {
  let directory: string;
  let gitLog: string;
  let env: NodeJS.ProcessEnv;
  let dagUri: string;
  let plainUri: string;

  before(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "airflow-lsp-trust-"));
    // A `git` first on PATH that only records how it was called.
    const bin = path.join(directory, "bin");
    fs.mkdirSync(bin);
    gitLog = path.join(directory, "git-calls.log");
    fs.writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> "${gitLog}"\nexit 128\n`, { mode: 0o755 });
    env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
    // The files are in what may be a repository, so git is asked (outside any, no git is needed to tell).
    fs.mkdirSync(path.join(directory, ".git"));
    const dag = path.join(directory, "dag.py");
    fs.writeFileSync(dag, DAG);
    dagUri = fileUri(dag);
    const plain = path.join(directory, "plain.py");
    fs.writeFileSync(plain, "print('hello')\n");
    plainUri = fileUri(plain);
  });
  after(() => fs.rmSync(directory, { recursive: true, force: true }));

  // Complete lines only: the fake git may have created the file and not yet written its line.
  const gitCalls = () => (fs.existsSync(gitLog) ? fs.readFileSync(gitLog, "utf8").split("\n").slice(0, -1) : []);

  async function waitForGitCalls(count: number): Promise<string[]> {
    const deadline = Date.now() + 5000;
    while (gitCalls().length < count) {
      if (Date.now() > deadline) assert.fail(`expected ${count} git calls, saw ${JSON.stringify(gitCalls())}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return gitCalls();
  }

  test("a trusted workspace reads the committed version of a DAG on open and again on save, never for other files", async () => {
    fs.rmSync(gitLog, { force: true });
    const session = await LspSession.start({ initializationOptions: { trusted: true }, env });
    try {
      await session.open(plainUri, "print('hello')\n");
      await session.open(dagUri, DAG);
      assert.deepEqual(await waitForGitCalls(1), ["rev-parse --show-toplevel"]);
      session.save(dagUri);
      await waitForGitCalls(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(gitCalls(), ["rev-parse --show-toplevel", "rev-parse --show-toplevel"], "git ran for the DAG only, once on open and once on save");
    } finally {
      session.dispose();
    }
  });

  for (const [name, initializationOptions] of [
    ["without initializationOptions", undefined],
    ["with trusted: false", { trusted: false }],
  ] as const) {
    test(`an untrusted workspace (${name}) never runs git`, async () => {
      fs.rmSync(gitLog, { force: true });
      const session = await LspSession.start({ initializationOptions, env });
      try {
        assert.equal((await session.open(dagUri, DAG)).diagnostics.length, 1);
        session.save(dagUri);
        await session.change(dagUri, [{ range: { start: { line: 7, character: 0 }, end: { line: 7, character: 0 } }, text: "# edited\n" }]);
        session.save(dagUri);
        // A trusted server has called git by now (previous test); give a wrongly spawned one time to show up.
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(gitCalls(), []);
      } finally {
        session.dispose();
      }
    });
  }
});

describe("AS301 against a real git repository", () => {
  const operator = (key: string) => resumableOperator("SparkJob", key);
  let repository: string;
  let fileUriInRepo: string;
  let filePath: string;

  const git = (...args: string[]) => gitIn(repository, ...args);

  before(() => {
    repository = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "airflow-lsp-git-")));
    filePath = path.join(repository, "spark.py");
    fs.writeFileSync(filePath, operator("spark_job_id"));
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "deployed key");
    fileUriInRepo = fileUri(filePath);
  });
  after(() => fs.rmSync(repository, { recursive: true, force: true }));

  const keyRange = (text: string) => rangeOf(text, 4, '"spark_run_id"');

  test("trusted: a key renamed since HEAD is reported once the baseline is read, and cleared when HEAD catches up on save", async () => {
    const session = await LspSession.start({ initializationOptions: { trusted: true } });
    try {
      const renamed = operator("spark_run_id");
      fs.writeFileSync(filePath, renamed);
      const reported = session.nextDiagnostics(fileUriInRepo, 1, { matching: (p) => p.diagnostics.some((d) => d.code === "AS301") });
      session.openWithoutWaiting(fileUriInRepo, renamed);
      const [diagnostic] = (await reported).diagnostics;
      assert.equal(diagnostic.code, "AS301");
      assert.deepEqual(diagnostic.range, keyRange(renamed));
      assert.equal(diagnostic.severity, DiagnosticSeverity.Warning);

      git("commit", "-q", "-am", "rename the key");
      const cleared = session.nextDiagnostics(fileUriInRepo, 1);
      session.save(fileUriInRepo);
      assert.deepEqual((await cleared).diagnostics, []);
    } finally {
      session.dispose();
      git("reset", "-q", "--hard", "HEAD~1");
    }
  });

  test("untrusted: no baseline, so AS301 stays silent", async () => {
    const session = await LspSession.start({ initializationOptions: { trusted: false } });
    try {
      const renamed = operator("spark_run_id");
      fs.writeFileSync(filePath, renamed);
      assert.deepEqual((await session.open(fileUriInRepo, renamed)).diagnostics, []);
      // A later publication of the same version (after a baseline read, were there one) must not bring AS301 either.
      const later301 = session.nextDiagnostics(fileUriInRepo, 1, { timeoutMs: 500, matching: (p) => p.diagnostics.some((d) => d.code === "AS301") });
      await assert.rejects(later301, /no matching diagnostics/);
    } finally {
      session.dispose();
    }
  });
});
