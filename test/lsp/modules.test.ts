/**
 * The language server's pure pieces, in process: the fix-all edit, the suppression edit, settings
 * parsing, code action kind matching and the worker's replacement after a crash. The protocol tests
 * cover how they are wired.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { TextDocument } from "vscode-languageserver-textdocument";
import { PythonDocument } from "../../server/src/engine";
import { changedLinesEdit } from "../../server/src/lsp/changedLines";
import { isFixAllRequested, isRequested } from "../../server/src/lsp/codeActions";
import { LintWorkerClient } from "../../server/src/lsp/lintWorkerClient";
import { parseSettings } from "../../server/src/lsp/settings";
import { linesMayEndInsideStrings, suppressionEdit } from "../../server/src/lsp/suppression";
import type { PlacedEdit } from "../../server/src/lsp/workerProtocol";

function apply(text: string, edit: PlacedEdit): string {
  return TextDocument.applyEdits(TextDocument.create("file:///t.py", "python", 1, text), [edit]);
}

describe("fix-all edit of the changed lines", () => {
  const cases: [string, string, string][] = [
    ["one line in the middle", "a = 1\nb = 2\nc = 3\n", "a = 1\nb = 22\nc = 3\n"],
    ["the first line", "a = 1\nb = 2\n", "x = 1\nb = 2\n"],
    ["the last line without a newline", "a = 1\nb = 2", "a = 1\nb = 3"],
    ["an inserted line", "a = 1\nc = 3\n", "a = 1\nb = 2\nc = 3\n"],
    ["a removed line", "a = 1\nb = 2\nc = 3\n", "a = 1\nc = 3\n"],
    ["two distant lines", "a = 1\nb = 2\nc = 3\nd = 4\n", "a = 0\nb = 2\nc = 3\nd = 0\n"],
    ["CRLF line ends", "a = 1\r\nb = 2\r\nc = 3\r\n", "a = 1\r\nb = 20\r\nc = 3\r\n"],
    ["astral characters", "s = '😀'\nt = '😀'\n", "s = '😀'\nt = '😁'\n"],
    ["an import added at the top", "import os\n\nx = 1\n", "import os\nfrom datetime import timedelta\n\nx = 1\n"],
  ];
  for (const [name, before, after] of cases) {
    test(name, () => {
      const edit = changedLinesEdit(new PythonDocument("file:///t.py", before), after);
      assert.ok(edit);
      assert.equal(apply(before, edit), after);
      assert.equal(edit.range.start.character, 0, "starts at a line start");
      assert.ok(edit.range.end.character === 0 || edit.range.end.line === before.split("\n").length - 1, "ends at a line start or the end of the text");
    });
  }

  test("covers only the lines that differ", () => {
    const edit = changedLinesEdit(new PythonDocument("file:///t.py", "a = 1\nb = 2\nc = 3\n"), "a = 1\nb = 22\nc = 3\n");
    assert.deepEqual(edit, { range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, newText: "b = 22\n" });
  });

  test("nothing to do for identical texts", () => {
    assert.equal(changedLinesEdit(new PythonDocument("file:///t.py", "a = 1\n"), "a = 1\n"), undefined);
  });
});

describe("suppression edit", () => {
  const suppress = (text: string, line: number, code = "AS102") => {
    const edit = suppressionEdit(new PythonDocument("file:///t.py", text), line, code);
    return edit && apply(text, edit).split(/\r?\n/)[line];
  };

  test("appends a noqa comment after the code, before trailing spaces", () => {
    assert.equal(suppress("x = 1\nstore.set('k', None)   \n", 1), "store.set('k', None)  # noqa: AS102   ");
  });

  test("extends an existing list, keeping the rest of the comment", () => {
    assert.equal(suppress("store.set('k', None)  # noqa: AS101 why\n", 0), "store.set('k', None)  # noqa: AS101, AS102 why");
    assert.equal(suppress("store.set('k', None)  # type: ignore  # noqa:AS101,AS107\n", 0), "store.set('k', None)  # type: ignore  # noqa:AS101,AS107, AS102");
  });

  test("adds a noqa comment after another comment", () => {
    assert.equal(suppress("store.set('k', None)  # keep it\n", 0), "store.set('k', None)  # keep it  # noqa: AS102");
  });

  test("works on CRLF files", () => {
    assert.equal(suppress("x = 1\r\nstore.set('k', None)\r\n", 1), "store.set('k', None)  # noqa: AS102");
  });

  test("offers nothing where a comment cannot go", () => {
    assert.equal(suppress("store.set('k', None) + \\\n    1\n", 0), undefined, "backslash continuation");
    assert.equal(suppress("store.set('k', None); s = '''a\nb'''\n", 0), undefined, "the line ends inside a string");
  });

  test("the lint worker's once-per-lint test of strings across lines changes no edit", () => {
    const texts = [
      "store.set('k', None); s = '''a\nb'''\nx = 1\n",
      'store.set("k", None); s = """a\nb"""\n',
      "s = f'{a +\n b}'; store.set('k', None)\nt = rf\"{x}\"\n",
      "store.set('k', None)\ny = 'plain'  # a comment\nz = {\n 'a': 1}\n",
    ];
    for (const text of texts) {
      const document = new PythonDocument("file:///t.py", text);
      for (let line = 0; line < document.lineCount; line++) {
        assert.deepEqual(suppressionEdit(document, line, "AS102", linesMayEndInsideStrings(text)), suppressionEdit(document, line, "AS102"), `${JSON.stringify(text)} line ${line}`);
      }
    }
    assert.equal(linesMayEndInsideStrings("x = 'a'\ny = \"b\"\n"), false);
  });

  test("a comment is fine inside brackets and after a string closed on the line", () => {
    assert.equal(suppress("store.set('k', {\n    'a': None})\n", 0), "store.set('k', {  # noqa: AS102");
    assert.equal(suppress("s = '''a\nb'''; store.set('k', None)\n", 1), "b'''; store.set('k', None)  # noqa: AS102");
  });

  test("nothing to add when the code is already listed", () => {
    assert.equal(suppress("store.set('k', None)  # noqa: AS102\n", 0), undefined);
  });
});

describe("settings", () => {
  test("defaults when the section is missing", () => {
    const defaults = { enable: true, showSyntaxErrors: false, severities: { AS001: "off" } };
    assert.deepEqual(parseSettings(undefined, assert.fail), defaults);
    assert.deepEqual(parseSettings(null, assert.fail), defaults);
  });

  test("reads enable and rule severities, normalising the code", () => {
    assert.deepEqual(parseSettings({ enable: false, rules: { AS101: "off", as102: "hint" } }, assert.fail), { enable: false, showSyntaxErrors: false, severities: { AS101: "off", AS102: "hint", AS001: "off" } });
  });

  test("AS001 runs only with showSyntaxErrors, then at the severity the rules give it", () => {
    assert.deepEqual(parseSettings({ rules: { AS001: "warning" } }, assert.fail).severities, { AS001: "off" });
    assert.deepEqual(parseSettings({ showSyntaxErrors: true }, assert.fail), { enable: true, showSyntaxErrors: true, severities: {} });
    assert.deepEqual(parseSettings({ showSyntaxErrors: true, rules: { AS001: "warning" } }, assert.fail).severities, { AS001: "warning" });
    assert.deepEqual(parseSettings({ showSyntaxErrors: true, rules: { AS001: "off" } }, assert.fail).severities, { AS001: "off" });
  });

  test("ignores and reports invalid entries", () => {
    const warnings: string[] = [];
    const settings = parseSettings({ rules: { AS101: "loud", E501: "error", AS103: 3, AS104: "info" } }, (message) => warnings.push(message));
    assert.deepEqual(settings.severities, { AS104: "info", AS001: "off" });
    assert.equal(warnings.length, 3);
  });
});

describe("code action kinds", () => {
  test("a requested kind covers its sub-kinds", () => {
    assert.equal(isRequested("quickfix", undefined), true);
    assert.equal(isRequested("quickfix", ["quickfix"]), true);
    assert.equal(isRequested("refactor.rewrite", ["refactor"]), true);
    assert.equal(isRequested("quickfix", ["refactor"]), false);
    assert.equal(isRequested("source.fixAll.airflowStateStore", ["source.fixAll"]), true);
    assert.equal(isRequested("source.fixAllOther", ["source.fixAll"]), false);
  });

  test("fix-all is computed only when asked for explicitly", () => {
    assert.equal(isFixAllRequested(undefined), false);
    assert.equal(isFixAllRequested(["quickfix"]), false);
    assert.equal(isFixAllRequested(["source"]), true);
    assert.equal(isFixAllRequested(["source.fixAll"]), true);
    assert.equal(isFixAllRequested(["source.fixAll.airflowStateStore"]), true);
  });
});

describe("lint worker client", () => {
  // A stand-in worker: answers fix-all requests, dies on a lint request.
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "airflow-lsp-worker-")), "worker.js");
  fs.writeFileSync(
    script,
    `const { parentPort } = require("node:worker_threads");
parentPort.on("message", (m) => {
  if (m.type === "lint") process.exit(3);
  if (m.type === "fixAll") parentPort.postMessage({ type: "reply", id: m.id, result: { version: m.version } });
});`,
  );
  after(() => fs.rmSync(path.dirname(script), { recursive: true, force: true }));

  test("replaces a dead worker a few times, failing the requests in flight, then gives up", async () => {
    const logged: string[] = [];
    let restarts = 0;
    const client = new LintWorkerClient(script, { info: (m) => logged.push(m), error: (m) => logged.push(m), warn: (m) => logged.push(m), debug: (m) => logged.push(m) }, { restarted: () => restarts++, lost: assert.fail });
    try {
      assert.deepEqual(await client.fixAll("file:///a.py", 4, { severities: {} }), { version: 4 });
      for (let death = 1; death <= 3; death++) {
        await assert.rejects(client.lint("file:///a.py", 4, { severities: {} }), /exited with code 3/);
        await waitUntil(() => restarts === death);
        assert.deepEqual(await client.fixAll("file:///a.py", 4, { severities: {} }), { version: 4 }, "the new worker answers");
      }
      await assert.rejects(client.lint("file:///a.py", 4, { severities: {} }), /exited with code 3/);
      await waitUntil(() => logged.some((m) => m.includes("diagnostics are off")));
      await assert.rejects(client.fixAll("file:///a.py", 4, { severities: {} }), /not running/);
      assert.equal(restarts, 3);
    } finally {
      client.dispose();
    }
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
