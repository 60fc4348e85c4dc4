/**
 * The value classifier behind AS101 and AS107: what an expression certainly evaluates to, and where
 * the offending parts of a container are. Each snippet's last expression statement is classified.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parsePython, SyntaxNode } from "../../server/src/engine/syntax/parser";
import { SemanticModel } from "../../server/src/engine/airflow/model";
import { isNonJson, ValueInfo, valueKind, valueParts } from "../../server/src/engine/airflow/valueKind";

function probe(source: string): { model: SemanticModel; node: SyntaxNode } {
  const text = source.replace(/^\n/, "");
  const model = new SemanticModel(parsePython(text), text);
  const statements = model.root.descendantsOfType("expression_statement");
  return { model, node: statements[statements.length - 1].namedChildren[0] };
}

function kindOf(source: string): ValueInfo["kind"] {
  const { model, node } = probe(source);
  return valueKind(model, node).kind;
}

/** The offending parts as `text` or `text via name`. */
function partsOf(source: string, wanted: (info: ValueInfo) => boolean): string[] {
  const { model, node } = probe(source);
  return valueParts(model, node, wanted).map((p) => (p.via ? `${p.node.text} via ${p.via.text}` : p.node.text));
}

const nonJson = (info: ValueInfo) => isNonJson(info.kind);

describe("valueKind: dates and times however datetime is imported", () => {
  test("from datetime import ...", () => {
    assert.equal(kindOf("from datetime import datetime\ndatetime.now()"), "datetime");
    assert.equal(kindOf("from datetime import datetime, timezone\ndatetime.now(tz=timezone.utc)"), "datetime");
    assert.equal(kindOf("from datetime import datetime\ndatetime(2026, 1, 1)"), "datetime");
    assert.equal(kindOf("from datetime import datetime\ndatetime.fromisoformat('2026-01-01')"), "datetime");
    assert.equal(kindOf("from datetime import date\ndate.today()"), "date");
    assert.equal(kindOf("from datetime import time\ntime(12, 30)"), "time");
    assert.equal(kindOf("from datetime import timedelta\ntimedelta(days=1)"), "timedelta");
  });

  test("import datetime, import datetime as dt, and a function-local import", () => {
    assert.equal(kindOf("import datetime\ndatetime.datetime.now()"), "datetime");
    assert.equal(kindOf("import datetime as dt\ndt.date.today()"), "date");
    assert.equal(kindOf("from datetime import datetime\ndef f():\n    import datetime\n    datetime.date.today()"), "date");
  });

  test("pendulum", () => {
    assert.equal(kindOf("import pendulum\npendulum.now('UTC')"), "datetime");
    assert.equal(kindOf("import pendulum\npendulum.datetime(2026, 1, 1)"), "datetime");
    assert.equal(kindOf("from pendulum import datetime\ndatetime(2026, 1, 1)"), "datetime");
    assert.equal(kindOf("import pendulum\npendulum.parse('2026-01-01')"), "temporal");
  });

  test("arithmetic and methods keep or change the kind as Python does", () => {
    const imports = "from datetime import datetime, timedelta\n";
    assert.equal(kindOf(`${imports}datetime.now() - timedelta(days=1)`), "datetime");
    assert.equal(kindOf(`${imports}timedelta(days=1) + datetime.now()`), "datetime");
    assert.equal(kindOf(`${imports}datetime.now() - datetime(2026, 1, 1)`), "timedelta");
    assert.equal(kindOf(`${imports}datetime.now().replace(microsecond=0)`), "datetime");
    assert.equal(kindOf(`${imports}datetime.now().date()`), "date");
    assert.equal(kindOf(`${imports}datetime.now().isoformat()`), "unknown");
    assert.equal(kindOf(`${imports}datetime.now() * 2`), "unknown");
  });

  test("a local variable that shadows the module is not the module", () => {
    assert.equal(kindOf("def f(datetime):\n    datetime.now()"), "unknown");
    assert.equal(kindOf("datetime = make_clock()\ndatetime.now()"), "unknown");
    // Two imports of the same name: which one is meant depends on the order at run time.
    assert.equal(kindOf("import datetime\nfrom datetime import datetime\ndatetime.now()"), "unknown");
    // Not imported at all: a NameError, not a datetime.
    assert.equal(kindOf("datetime.now()"), "unknown");
  });
});

describe("valueKind: other non-JSON values", () => {
  test("sets, bytes, Decimal, Path, UUID, lambdas and generators", () => {
    assert.equal(kindOf("{1, 2}"), "set");
    assert.equal(kindOf("{x for x in y}"), "set");
    assert.equal(kindOf("set()"), "set");
    assert.equal(kindOf("frozenset(ids)"), "frozenset");
    assert.equal(kindOf("b'raw'"), "bytes");
    assert.equal(kindOf("from decimal import Decimal\nDecimal('1.5')"), "decimal");
    assert.equal(kindOf("import decimal\ndecimal.Decimal('1.5')"), "decimal");
    assert.equal(kindOf("from pathlib import Path\nPath('/data')"), "path");
    assert.equal(kindOf("from pathlib import Path\nROOT = Path('/data')\nROOT / 'x' / 'y'"), "path");
    assert.equal(kindOf("from pathlib import Path\nPath('/data/x').parent"), "path");
    assert.equal(kindOf("from pathlib import Path\nPath('/data/x').name"), "unknown");
    assert.equal(kindOf("from uuid import uuid4\nuuid4()"), "uuid");
    assert.equal(kindOf("import uuid\nuuid.UUID(text)"), "uuid");
    assert.equal(kindOf("lambda: 1"), "lambda");
    assert.equal(kindOf("(x for x in y)"), "generator");
  });

  test("a builtin shadowed by a local name is unknown", () => {
    assert.equal(kindOf("def f(set):\n    set()"), "unknown");
    assert.equal(kindOf("from sqlalchemy import Path\nPath('x')"), "unknown");
  });
});

describe("valueKind: instances of classes of the file", () => {
  test("plain classes, dataclasses and their subclasses are not JSON", () => {
    assert.equal(kindOf("class A:\n    pass\nA()"), "instance");
    assert.equal(kindOf("class A(object):\n    pass\nA()"), "instance");
    assert.equal(kindOf("from dataclasses import dataclass\n@dataclass\nclass A:\n    x: int\nA(1)"), "instance");
    assert.equal(kindOf("from dataclasses import dataclass\n@dataclass(frozen=True)\nclass A:\n    x: int\nA(1)"), "instance");
    assert.equal(kindOf("class A:\n    pass\nclass B(A):\n    pass\nB()"), "instance");
    assert.equal(kindOf("from enum import Enum\nclass Color(Enum):\n    RED = 'red'\nColor('red')"), "instance");
  });

  test("str/int/dict subclasses and TypedDicts are JSON", () => {
    assert.equal(kindOf("import enum\nclass Status(str, enum.Enum):\n    DONE = 'done'\nStatus('done')"), "json");
    assert.equal(kindOf("from enum import IntEnum\nclass Level(IntEnum):\n    LOW = 1\nLevel(1)"), "json");
    assert.equal(kindOf("from typing import TypedDict\nclass P(TypedDict):\n    page: int\nP(page=1)"), "json");
    assert.equal(kindOf("class Tags(dict):\n    pass\nclass More(Tags):\n    pass\nMore()"), "json");
  });

  test("anything that can change what the call returns makes it unknown", () => {
    assert.equal(kindOf("from typing import NamedTuple\nclass R(NamedTuple):\n    a: int\nR(1)"), "unknown");
    assert.equal(kindOf("from lib import Base\nclass A(Base):\n    pass\nA()"), "unknown");
    assert.equal(kindOf("class A(metaclass=Meta):\n    pass\nA()"), "unknown");
    assert.equal(kindOf("class A:\n    def __new__(cls):\n        return 1\nA()"), "unknown");
    assert.equal(kindOf("from lib import register\n@register\nclass A:\n    pass\nA()"), "unknown");
    assert.equal(kindOf("class A:\n    pass\nA = make()\nA()"), "unknown");
  });
});

describe("valueKind: NaN and Infinity", () => {
  const nonFinite = (source: string) => {
    const { model, node } = probe(source);
    const info = valueKind(model, node);
    return info.kind === "non-finite" ? info.nonFinite : info.kind;
  };

  test("float() of the special strings, in any case and with spaces", () => {
    assert.equal(nonFinite("float('nan')"), "NaN");
    assert.equal(nonFinite("float('NaN')"), "NaN");
    assert.equal(nonFinite("float('-nan')"), "NaN");
    assert.equal(nonFinite("float('inf')"), "Infinity");
    assert.equal(nonFinite("float(' +Infinity ')"), "Infinity");
    assert.equal(nonFinite("float('-INF')"), "-Infinity");
    assert.equal(nonFinite("float('1.5')"), "unknown");
    assert.equal(nonFinite("float(text)"), "unknown");
    assert.equal(nonFinite("def f(float):\n    float('nan')"), "unknown");
  });

  test("math and numpy constants, negation, literals that overflow", () => {
    assert.equal(nonFinite("import math\nmath.nan"), "NaN");
    assert.equal(nonFinite("import math\n-math.inf"), "-Infinity");
    assert.equal(nonFinite("from math import inf\n-(-inf)"), "Infinity");
    assert.equal(nonFinite("import numpy as np\nnp.nan"), "NaN");
    assert.equal(nonFinite("import numpy\nnumpy.NINF"), "-Infinity");
    assert.equal(nonFinite("from numpy import inf as INF\nINF"), "Infinity");
    assert.equal(nonFinite("1e999"), "Infinity");
    assert.equal(nonFinite("1e300"), "json");
    assert.equal(nonFinite("import math\nmath.pi"), "unknown");
  });
});

describe("valueKind: names and JSON values", () => {
  test("names bound once are followed, names bound twice are not", () => {
    assert.equal(kindOf("from datetime import datetime\ndef f():\n    now = datetime.now()\n    now"), "datetime");
    assert.equal(kindOf("from datetime import datetime\nNOW = datetime.now()\ndef f():\n    NOW"), "datetime");
    assert.equal(kindOf("from datetime import datetime\ndef f():\n    now = datetime.now()\n    now = now.isoformat()\n    now"), "unknown");
    assert.equal(kindOf("from datetime import datetime\ndef f(now=datetime.now()):\n    now"), "unknown");
    assert.equal(kindOf("def f():\n    for now in stamps:\n        now"), "unknown");
  });

  test("literals and containers of literals are JSON; tuples and dicts with non-string keys are not", () => {
    assert.equal(kindOf("'text'"), "json");
    assert.equal(kindOf("f'{a}-{b}'"), "json");
    assert.equal(kindOf("-3"), "json");
    assert.equal(kindOf("[1, 'a', None, {'k': [True]}]"), "json");
    assert.equal(kindOf("str(x)"), "json");
    assert.equal(kindOf("None"), "none");
    assert.equal(kindOf("(1, 2)"), "tuple");
    assert.equal(kindOf("()"), "tuple");
    assert.equal(kindOf("tuple(rows)"), "tuple");
    assert.equal(kindOf("[1, (2, 3)]"), "unknown");
    assert.equal(kindOf("{1: 'a'}"), "non-str-key");
    assert.equal(kindOf("{'a': 1, None: 2}"), "non-str-key");
    assert.equal(kindOf("{(1, 2): 'a'}"), "non-str-key");
    assert.equal(kindOf("{-1.5: 'a'}"), "non-str-key");
    assert.equal(kindOf("{key: 'a'}"), "unknown");
    assert.equal(kindOf("[*rows, 1]"), "unknown");
    assert.equal(kindOf("2j"), "unknown");
  });
});

describe("valueParts: the offending parts of a value", () => {
  const imports = "from datetime import datetime, date\nfrom uuid import uuid4\n";

  test("the value itself, before its elements", () => {
    assert.deepEqual(partsOf(`${imports}{date.today(), 1}`, nonJson), ["{date.today(), 1}"]);
  });

  test("elements of lists, tuples and dicts, recursively, and both branches of a choice", () => {
    assert.deepEqual(partsOf(`${imports}{"at": datetime.now(), "ids": [1, uuid4()], "k": ["a", date.today()]}`, nonJson), [
      "datetime.now()",
      "uuid4()",
      "date.today()",
    ]);
    // A tuple is refused itself: it is the part, not its elements.
    assert.deepEqual(partsOf(`${imports}{"k": ("a", date.today())}`, nonJson), ['("a", date.today())']);
    assert.deepEqual(partsOf(`${imports}datetime.now() if retry else uuid4()`, nonJson), ["datetime.now()", "uuid4()"]);
    assert.deepEqual(partsOf(`${imports}cached or date.today()`, nonJson), ["date.today()"]);
    assert.deepEqual(partsOf(`${imports}dict(at=datetime.now(), rows=1)`, nonJson), ["datetime.now()"]);
  });

  test("dict keys and arbitrary calls are not looked into", () => {
    assert.deepEqual(partsOf(`${imports}{date.today(): 1}`, nonJson), []);
    assert.deepEqual(partsOf(`${imports}summarize(datetime.now())`, nonJson), []);
    assert.deepEqual(partsOf(`${imports}[d.isoformat() for d in [date.today()]]`, nonJson), []);
  });

  test("a container behind a name is looked into only when the name is used nowhere else", () => {
    const once = `${imports}def f():\n    payload = {"at": datetime.now()}\n    payload`;
    assert.deepEqual(partsOf(once, nonJson), ["datetime.now() via payload"]);
    const changed = `${imports}def f():\n    payload = {"at": datetime.now()}\n    payload["at"] = str(payload["at"])\n    payload`;
    assert.deepEqual(partsOf(changed, nonJson), []);
    const nested = `${imports}def f():\n    inner = [uuid4()]\n    outer = {"ids": inner}\n    [outer]`;
    assert.deepEqual(partsOf(nested, nonJson), ["uuid4() via outer"]);
  });

  test("a dict with a non-string key is judged where it is written, or behind a name used once", () => {
    assert.deepEqual(partsOf("def f():\n    counts = {7: 1}\n    counts", nonJson), ["{7: 1} via counts"]);
    assert.deepEqual(partsOf("def f():\n    counts = {7: 1}\n    counts.pop(7)\n    counts", nonJson), []);
  });

  test("each part says whether it is nested, and whether a tuple or odd-keyed dict around it is refused first", () => {
    const nonFinite = (info: ValueInfo) => info.kind === "non-finite";
    const places = (source: string) => {
      const { model, node } = probe(source);
      return valueParts(model, node, nonFinite).map((p) => `${p.node.text}:${p.nested ? "nested" : "top"}${p.insideRefused ? ",refused" : ""}`);
    };
    assert.deepEqual(places("import math\nmath.nan"), ["math.nan:top"]);
    assert.deepEqual(places("import math\nmath.nan if x else 1"), ["math.nan:top"]);
    assert.deepEqual(places("import math\n[1, {'a': math.inf}]"), ["math.inf:nested"]);
    assert.deepEqual(places("import math\n[(1, math.nan)]"), ["math.nan:nested,refused"]);
    assert.deepEqual(places("import math\n{1: math.nan}"), ["math.nan:nested,refused"]);
  });

  test("a name bound to a choice is not followed: the value may be checked before it is stored", () => {
    const guarded = "import math\ndef f(xs):\n    mean = sum(xs) / len(xs) if xs else float('nan')\n    mean";
    assert.deepEqual(partsOf(guarded, (info) => info.kind === "non-finite"), []);
  });
});
