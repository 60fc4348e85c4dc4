/**
 * The edit builders of server/src/engine/fixes.ts, asserted on the exact text they produce:
 * `ensureImported` in every import style a DAG file may use, `removeArgument` in every call layout.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyEdits, editsOverlap, ensureImported, insertAt, removeArgument, replaceNode } from "../../server/src/engine/fixes/edits";
import { parsePython, SyntaxNode } from "../../server/src/engine/syntax/parser";
import { SemanticModel } from "../../server/src/engine/airflow/model";

function modelOf(text: string): SemanticModel {
  return new SemanticModel(parsePython(text), text);
}

/** The first node of `type` whose text starts with `prefix`. */
function nodeOf(model: SemanticModel, type: string, prefix: string): SyntaxNode {
  const node = model.root.descendantsOfType(type).find((n) => n.text.startsWith(prefix));
  assert.ok(node, `no ${type} starting with ${prefix}`);
  return node;
}

function assertParses(text: string): void {
  assert.ok(!parsePython(text).rootNode.hasError, `syntax error in:\n${text}`);
}

/** Imports `datetime.timedelta` for a use at the first call starting with `at` (module scope without it). */
function importTimedelta(text: string, at?: string) {
  const model = modelOf(text);
  const imported = ensureImported(model, "datetime", "timedelta", at ? nodeOf(model, "call", at) : undefined);
  const result = applyEdits(text, imported.edits);
  assertParses(result);
  return { reference: imported.reference, text: result, edits: imported.edits.length };
}

describe("ensureImported", () => {
  test("extends `from datetime import datetime`", () => {
    const result = importTimedelta("from datetime import datetime\n\nx = 1\n");
    assert.deepEqual(result, { reference: "timedelta", text: "from datetime import datetime, timedelta\n\nx = 1\n", edits: 1 });
  });

  test("extends an aliased from-import and one continued with a backslash", () => {
    assert.equal(importTimedelta("from datetime import datetime as dt\n").text, "from datetime import datetime as dt, timedelta\n");
    assert.equal(importTimedelta("from datetime import date, \\\n    datetime\n").text, "from datetime import date, \\\n    datetime, timedelta\n");
  });

  test("adds a line to a multi-line parenthesised import with a trailing comma, keeping its comment", () => {
    const text = "from datetime import (\n    date,\n    datetime,  # naive on purpose\n)\n";
    assert.deepEqual(importTimedelta(text), {
      reference: "timedelta",
      text: "from datetime import (\n    date,\n    datetime,  # naive on purpose\n    timedelta,\n)\n",
      edits: 1,
    });
  });

  test("extends parenthesised imports without a trailing comma, or on one line", () => {
    assert.equal(importTimedelta("from datetime import (date,\n                      datetime  # why\n)\n").text, "from datetime import (date,\n                      datetime, timedelta  # why\n)\n");
    assert.equal(importTimedelta("from datetime import (date, datetime,)\n").text, "from datetime import (date, datetime, timedelta,)\n");
    assert.equal(importTimedelta("from datetime import (\n\tdate,\n)\n").text, "from datetime import (\n\tdate,\n\ttimedelta,\n)\n");
  });

  test("reuses `import datetime` and `import datetime as dt` without an edit", () => {
    assert.deepEqual(importTimedelta("import datetime\n"), { reference: "datetime.timedelta", text: "import datetime\n", edits: 0 });
    assert.deepEqual(importTimedelta("import datetime as dt\nfrom datetime import date\n"), { reference: "dt.timedelta", text: "import datetime as dt\nfrom datetime import date\n", edits: 0 });
  });

  test("reuses an existing import of the name, aliased or not, and a wildcard import", () => {
    assert.deepEqual(importTimedelta("from datetime import timedelta\n"), { reference: "timedelta", text: "from datetime import timedelta\n", edits: 0 });
    assert.deepEqual(importTimedelta("from datetime import date, timedelta as td\n"), { reference: "td", text: "from datetime import date, timedelta as td\n", edits: 0 });
    assert.deepEqual(importTimedelta("from datetime import *\n"), { reference: "timedelta", text: "from datetime import *\n", edits: 0 });
  });

  test("adds `from datetime import timedelta` on its own line after the last top-level import", () => {
    const text = "import os\nfrom airflow.sdk import task  # noqa: F401\n\n\n@task\ndef f():\n    pass\n";
    assert.deepEqual(importTimedelta(text), {
      reference: "timedelta",
      text: "import os\nfrom airflow.sdk import task  # noqa: F401\nfrom datetime import timedelta\n\n\n@task\ndef f():\n    pass\n",
      edits: 1,
    });
  });

  test("adds the import after the imports of a file without a final newline", () => {
    assert.equal(importTimedelta("import os").text, "import os\nfrom datetime import timedelta\n");
  });

  test("keeps `from __future__` imports first", () => {
    assert.equal(importTimedelta('"""Doc."""\nfrom __future__ import annotations\n\nx = 1\n').text, '"""Doc."""\nfrom __future__ import annotations\nfrom datetime import timedelta\n\nx = 1\n');
  });

  test("puts the import under a module docstring when there is no import", () => {
    assert.equal(importTimedelta('"""Orders DAG.\n\nLoads orders.\n"""\n\nx = 1\n').text, '"""Orders DAG.\n\nLoads orders.\n"""\nfrom datetime import timedelta\n\nx = 1\n');
    assert.equal(importTimedelta("# License header\n'''Doc.'''  # trailing\nx = 1\n").text, "# License header\n'''Doc.'''  # trailing\nfrom datetime import timedelta\nx = 1\n");
  });

  test("puts the import below a shebang and an encoding line, else at the very top", () => {
    assert.equal(importTimedelta("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n").text, "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nfrom datetime import timedelta\nx = 1\n");
    assert.equal(importTimedelta("# Orders.\nx = 1\n").text, "from datetime import timedelta\n# Orders.\nx = 1\n");
  });

  test("keeps a file's CRLF line endings", () => {
    assert.equal(importTimedelta("import os\r\nx = 1\r\n").text, "import os\r\nfrom datetime import timedelta\r\nx = 1\r\n");
  });

  test("imports the module when `timedelta` is bound to something else", () => {
    const result = importTimedelta("from airflow.sdk import task\n\ntimedelta = 7\n");
    assert.deepEqual(result, { reference: "datetime.timedelta", text: "from airflow.sdk import task\nimport datetime\n\ntimedelta = 7\n", edits: 1 });
  });

  test("uses an alias when both `timedelta` and `datetime` are taken, without rebinding `datetime`", () => {
    const result = importTimedelta("from datetime import datetime\n\ntimedelta = 7\n");
    assert.deepEqual(result, { reference: "datetime_timedelta", text: "from datetime import datetime, timedelta as datetime_timedelta\n\ntimedelta = 7\n", edits: 1 });
    const noFromImport = importTimedelta("import os\ndatetime = None\ntimedelta = 7\ndatetime_timedelta = 1\n");
    assert.equal(noFromImport.reference, "datetime_timedelta2");
    assert.equal(noFromImport.text, "import os\nfrom datetime import timedelta as datetime_timedelta2\ndatetime = None\ntimedelta = 7\ndatetime_timedelta = 1\n");
  });

  test("does not reuse an import shadowed where the name is written", () => {
    const text = "from datetime import timedelta\n\ndef f(timedelta):\n    store.set(1, 2)\n";
    assert.equal(importTimedelta(text).reference, "timedelta", "at module level the import is visible");
    assert.deepEqual(importTimedelta(text, "store.set"), { reference: "datetime.timedelta", text: "from datetime import timedelta\nimport datetime\n\ndef f(timedelta):\n    store.set(1, 2)\n", edits: 1 });
  });

  test("does not add a module-level name that a local shadows where it is written", () => {
    const text = "import os\n\ndef f():\n    timedelta = 3\n    store.set(1, 2)\n";
    assert.equal(importTimedelta(text, "store.set").reference, "datetime.timedelta");
  });

  test("reuses a function-local import only when it comes first", () => {
    const before = "import os\n\ndef f():\n    from datetime import timedelta\n    store.set(1, 2)\n";
    assert.deepEqual(importTimedelta(before, "store.set"), { reference: "timedelta", text: before, edits: 0 });
    const after = "import os\n\ndef f():\n    store.set(1, 2)\n    import datetime\n";
    const result = importTimedelta(after, "store.set");
    assert.notEqual(result.reference, "datetime.timedelta", "`datetime` is a local bound after the use: UnboundLocalError");
    assert.equal(result.edits, 1);
  });

  test("works for any module: airflow.sdk.NEVER_EXPIRE", () => {
    const text = "from airflow.sdk import DAG, task\n";
    const model = modelOf(text);
    const imported = ensureImported(model, "airflow.sdk", "NEVER_EXPIRE");
    assert.equal(imported.reference, "NEVER_EXPIRE");
    assert.equal(applyEdits(text, imported.edits), "from airflow.sdk import DAG, task, NEVER_EXPIRE\n");
    const sdk = modelOf("import airflow.sdk as sdk\n");
    assert.deepEqual(ensureImported(sdk, "airflow.sdk", "NEVER_EXPIRE"), { reference: "sdk.NEVER_EXPIRE", edits: [] });
  });
});

/** Removes the keyword argument `name=` of the first call and returns the text. */
function withoutArgument(text: string, name = "retention"): string {
  const model = modelOf(text);
  const argument = model.root.descendantsOfType("keyword_argument").find((k) => k.childForFieldName("name")?.text === name);
  assert.ok(argument, `no ${name}= in:\n${text}`);
  const result = applyEdits(text, [removeArgument(argument)]);
  assertParses(result);
  return result;
}

describe("removeArgument", () => {
  test("inline: last, middle, first, only, and before a trailing comma", () => {
    assert.equal(withoutArgument('s.set("k", v, retention=x)\n'), 's.set("k", v)\n');
    assert.equal(withoutArgument('s.set("k", retention=x, value=v)\n'), 's.set("k", value=v)\n');
    assert.equal(withoutArgument('s.set(retention=x, key="k", value=v)\n'), 's.set(key="k", value=v)\n');
    assert.equal(withoutArgument("s.set(retention=x)\n"), "s.set()\n");
    assert.equal(withoutArgument('s.set("k", v, retention=x,)\n'), 's.set("k", v,)\n');
    assert.equal(withoutArgument('s.set("k", v, retention=f(a, b), other=1)\n'), 's.set("k", v, other=1)\n');
  });

  test("an argument on a line of its own goes with its line and comment, trailing comma or not", () => {
    assert.equal(withoutArgument('s.set(\n    "k",\n    v,\n    retention=x,  # a week\n)\n'), 's.set(\n    "k",\n    v,\n)\n');
    assert.equal(withoutArgument('s.set(\n    "k",\n    v,\n    retention=x\n)\n'), 's.set(\n    "k",\n    v,\n)\n');
    assert.equal(withoutArgument('s.set(\n    retention=x,\n    key="k",\n    value=v,\n)\n'), 's.set(\n    key="k",\n    value=v,\n)\n');
    assert.equal(withoutArgument("s.set(\n    retention=x,\n)\n"), "s.set(\n)\n");
  });

  test("an argument spanning several lines goes whole", () => {
    assert.equal(withoutArgument('s.set(\n    "k",\n    v,\n    retention=timedelta(\n        days=7,\n    ),\n)\n'), 's.set(\n    "k",\n    v,\n)\n');
    assert.equal(withoutArgument('s.set("k", v, retention=timedelta(\n    days=7,\n))\n'), 's.set("k", v)\n');
  });

  test("comments on neighbouring lines stay", () => {
    assert.equal(withoutArgument('s.set(\n    "k",\n    v,  # the value\n    retention=x,  # a week\n)\n'), 's.set(\n    "k",\n    v,  # the value\n)\n');
    assert.equal(withoutArgument('s.set(\n    "k",\n    v,  # the value\n    retention=x)\n'), 's.set(\n    "k",\n    v,  # the value\n    )\n');
    assert.equal(withoutArgument('s.set(\n    retention=x,\n    # the key\n    key="k",\n)\n'), 's.set(\n    # the key\n    key="k",\n)\n');
    assert.equal(withoutArgument('s.set(retention=x,  # why\n      key="k")\n'), 's.set(# why\n      key="k")\n');
  });

  test("works on parameter lists too (AS201 removes `**context`)", () => {
    const remove = (text: string) => {
      const model = modelOf(text);
      const result = applyEdits(text, [removeArgument(nodeOf(model, "dictionary_splat_pattern", "**context"))]);
      assertParses(result);
      return result;
    };
    assert.equal(remove("def f(asset_state_store=None, **context):\n    pass\n"), "def f(asset_state_store=None):\n    pass\n");
    assert.equal(remove("def f(\n    asset_state_store=None,\n    **context,\n):\n    pass\n"), "def f(\n    asset_state_store=None,\n):\n    pass\n");
  });

  test("an argument sharing its line with others removes only itself and one comma", () => {
    assert.equal(withoutArgument('s.set(\n    "k", v,\n    retention=x)\n'), 's.set(\n    "k", v)\n');
    assert.equal(withoutArgument('s.set(\n    "k", v, retention=x,\n)\n'), 's.set(\n    "k", v,\n)\n');
    assert.equal(withoutArgument('s.set(\n    retention=x, key="k",\n    value=v,\n)\n'), 's.set(\n    key="k",\n    value=v,\n)\n');
    assert.equal(withoutArgument('s.set("k", v, \\\n      retention=x)\n'), 's.set("k", v)\n');
  });
});

describe("edit helpers", () => {
  test("replaceNode and insertAt build edits that applyEdits applies in any order", () => {
    const text = "x = f(1)\n";
    const model = modelOf(text);
    const edits = [insertAt(0, "# head\n"), replaceNode(nodeOf(model, "integer", "1"), "2"), insertAt(text.length, "y = 3\n")];
    assert.equal(applyEdits(text, edits), "# head\nx = f(2)\ny = 3\n");
    assert.equal(applyEdits(text, [...edits].reverse()), "# head\nx = f(2)\ny = 3\n");
  });

  test("editsOverlap: overlapping ranges and insertions at the same offset conflict, neighbours do not", () => {
    assert.equal(editsOverlap([{ start: 0, end: 5, newText: "" }], [{ start: 4, end: 6, newText: "" }]), true);
    assert.equal(editsOverlap([insertAt(3, "a")], [insertAt(3, "b")]), true);
    assert.equal(editsOverlap([{ start: 0, end: 3, newText: "" }], [{ start: 3, end: 5, newText: "" }]), false);
  });
});
