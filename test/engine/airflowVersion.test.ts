/**
 * Reading the Airflow version a project pins: PEP 440 and Poetry constraints, the TOML reader, each
 * kind of project file, which folder wins, and the cache.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { Diagnostic, lint, PythonDocument } from "../../server/src/engine";
import { AirflowPin, AirflowVersionResolver, describePin, diskProjectFiles, pinStatement, ProjectFiles } from "../../server/src/engine/project";
import { admitsOnlyBelow, Constraint, exactVersion, isCapped, parsePoetryConstraint, parseSpecifierSet, parseVersion } from "../../server/src/engine/project/pep440";
import { isAirflowDistribution, parseRequirement } from "../../server/src/engine/project/requirement";
import { parseToml, TomlError, tomlLookup } from "../../server/src/engine/project/toml";

/** An in-memory file system: absolute paths to texts. Folders exist where some file lies beneath them. */
function memoryFiles(files: Record<string, string>): ProjectFiles & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    readFile(file) {
      reads.push(file);
      return files[file];
    },
    listDir(folder) {
      const prefix = folder.endsWith("/") ? folder : folder + "/";
      const names = new Set<string>();
      for (const file of Object.keys(files)) if (file.startsWith(prefix)) names.add(file.slice(prefix.length).split("/")[0]);
      return names.size > 0 ? [...names] : undefined;
    },
  };
}

/** The pin for `/repo/dags/dag.py` in a repository made of `files` (paths relative to /repo). */
function pinIn(files: Record<string, string>, dag = "/repo/dags/dag.py"): AirflowPin | undefined {
  const absolute: Record<string, string> = { "/repo/.git/HEAD": "ref: refs/heads/main\n", [dag]: "" };
  for (const [name, text] of Object.entries(files)) absolute[name.startsWith("/") ? name : `/repo/${name}`] = text;
  return new AirflowVersionResolver(memoryFiles(absolute)).pinFor(dag);
}

/** The pin's essentials, compared in one assertion. */
function brief(pin: AirflowPin | undefined): string | undefined {
  return pin && `${pin.version} below33=${pin.below33} ${pin.source.path}:${pin.source.line}`;
}

describe("PEP 440 versions", () => {
  test("parses releases, epochs, pre-, post- and development releases", () => {
    assert.deepEqual(parseVersion("3.2.1"), { epoch: 0, release: [3, 2, 1], prerelease: false });
    assert.deepEqual(parseVersion("v2.10"), { epoch: 0, release: [2, 10], prerelease: false });
    assert.deepEqual(parseVersion("1!2.0"), { epoch: 1, release: [2, 0], prerelease: false });
    assert.equal(parseVersion("3.3.0rc1")?.prerelease, true);
    assert.equal(parseVersion("3.3.0.dev0")?.prerelease, true);
    assert.equal(parseVersion("3.3.0-beta.2")?.prerelease, true);
    assert.equal(parseVersion("2.10.5.post1")?.prerelease, false);
    assert.deepEqual(parseVersion("2.10.5+astro.1")?.release, [2, 10, 5]);
    assert.equal(parseVersion("latest"), undefined);
    assert.equal(parseVersion("3.2.x"), undefined);
  });
});

describe("PEP 440 specifiers: does the requirement keep Airflow below 3.3?", () => {
  const verdict = (constraint: Constraint | undefined) =>
    constraint === undefined ? "invalid" : !isCapped(constraint) ? "uncapped" : admitsOnlyBelow(constraint, [3, 3]) ? "below" : "not below";
  const cases: [string, string][] = [
    ["==3.2.1", "below"],
    ["==2.10.5", "below"],
    ["== 3.2.1", "below"],
    ["==3.3.0", "not below"],
    ["==3.3", "not below"],
    ["==3.3.0rc1", "not below"],
    ["===2.10.5", "below"],
    ["<3.3", "below"],
    ["<3.3.0", "below"],
    ["<3.3.1", "not below"],
    ["<4", "not below"],
    ["<=3.2.4", "below"],
    ["<=3.2", "below"],
    ["<=3.3", "not below"],
    ["<=3.3.0", "not below"],
    ["~=3.2.0", "below"],
    ["~=3.2.4", "below"],
    ["~=3.2", "not below"],
    ["~=2.10", "below"],
    ["~=2.10.0", "below"],
    ["==3.2.*", "below"],
    ["==2.*", "below"],
    ["==3.*", "not below"],
    ["==3.3.*", "not below"],
    [">=2.8,<3.3", "below"],
    [">=2.8, <3.3, !=3.0.0", "below"],
    [">=3.3,<4", "not below"],
    [">=3.0", "uncapped"],
    [">2.10", "uncapped"],
    ["!=3.3.0", "uncapped"],
    ["!=3.2.*", "uncapped"],
    [">=3.0,!=3.1.0", "uncapped"],
    ["==1!2.0", "uncapped"],
    ["==${AIRFLOW_VERSION}", "invalid"],
    ["~=3", "invalid"],
    [">=3.*", "invalid"],
    ["2.10.5", "invalid"],
  ];
  for (const [specifier, expected] of cases) {
    test(`${specifier} → ${expected}`, () => assert.equal(verdict(parseSpecifierSet(specifier)), expected));
  }

  test("names the version of an exact pin only", () => {
    assert.equal(exactVersion(parseSpecifierSet("==2.10.5")!), "2.10.5");
    assert.equal(exactVersion(parseSpecifierSet("===2.10.5")!), "2.10.5");
    assert.equal(exactVersion(parseSpecifierSet("==2.10.*")!), undefined);
    assert.equal(exactVersion(parseSpecifierSet(">=2.10,<3.3")!), undefined);
  });
});

describe("Poetry constraints", () => {
  const verdict = (text: string) => {
    const constraint = parsePoetryConstraint(text);
    return constraint === undefined ? "invalid" : !isCapped(constraint) ? "uncapped" : admitsOnlyBelow(constraint, [3, 3]) ? "below" : "not below";
  };
  const cases: [string, string][] = [
    ["^2.10", "below"],
    ["^2.10.5", "below"],
    ["^3.2", "not below"],
    ["^3", "not below"],
    ["~3.2", "below"],
    ["~3.2.1", "below"],
    ["~3", "not below"],
    ["~3.3", "not below"],
    ["~=3.2.0", "below"],
    ["2.10.5", "below"],
    ["3.3.0", "not below"],
    ["3.2.*", "below"],
    [">=2.8,<3.3", "below"],
    [">=2.8 <3.3", "below"],
    [">= 2.8, < 3.3", "below"],
    ["*", "uncapped"],
    [">=3.0", "uncapped"],
    ["~2.10 || ~3.2", "below"],
    ["^2.10 || ^3.0", "not below"],
    ["^2.10 || >=3.0", "uncapped"],
    ["latest", "invalid"],
  ];
  for (const [constraint, expected] of cases) {
    test(`${constraint} → ${expected}`, () => assert.equal(verdict(constraint), expected));
  }

  test("bumps the first non-zero component for ^ and the minor for ~", () => {
    assert.deepEqual(parsePoetryConstraint("^0.2.3"), [
      [
        { operator: ">=", version: "0.2.3", wildcard: false },
        { operator: "<", version: "0.3", wildcard: false },
      ],
    ]);
    assert.equal(parsePoetryConstraint("~1")![0][1].version, "2");
    assert.equal(parsePoetryConstraint("~1.2.3")![0][1].version, "1.3");
    assert.equal(exactVersion(parsePoetryConstraint("2.10.5")!), "2.10.5");
  });
});

describe("requirement strings", () => {
  test("read the name and the specifier as written", () => {
    assert.deepEqual(parseRequirement("apache-airflow[celery,postgres]==2.10.5"), { name: "apache-airflow", specifier: "==2.10.5", url: false });
    assert.deepEqual(parseRequirement("Apache_Airflow (>=2.8, <3.3)"), { name: "apache-airflow", specifier: ">=2.8, <3.3", url: false });
    assert.deepEqual(parseRequirement('apache-airflow==2.10.5; python_version >= "3.9"'), { name: "apache-airflow", specifier: "==2.10.5", url: false });
    assert.deepEqual(parseRequirement("apache-airflow"), { name: "apache-airflow", specifier: "", url: false });
    assert.deepEqual(parseRequirement("apache-airflow @ https://example.com/airflow.whl"), { name: "apache-airflow", specifier: "", url: true });
    assert.equal(parseRequirement("not a requirement"), undefined);
  });

  test("count apache-airflow and apache-airflow-core as Airflow, not providers or the task SDK", () => {
    assert.ok(isAirflowDistribution("apache-airflow"));
    assert.ok(isAirflowDistribution("Apache.Airflow"));
    assert.ok(isAirflowDistribution("apache_airflow_core"));
    assert.ok(!isAirflowDistribution("apache-airflow-providers-google"));
    assert.ok(!isAirflowDistribution("apache-airflow-task-sdk"));
  });
});

describe("the TOML reader", () => {
  test("reads tables, dotted keys, strings, arrays and inline tables with their lines", () => {
    const document = parseToml(
      [
        "# a comment",
        "[project]",
        'name = "dags"',
        "dependencies = [",
        '  "apache-airflow==2.10.5",  # pinned',
        "  'pandas',",
        "]",
        "version.major = 1",
        "",
        '[tool.poetry.dependencies]',
        'apache-airflow = { version = "^2.10", extras = ["celery"] }',
        '"quoted.key" = "a\\tb\\u00e9"',
        "",
        "[[tool.poetry.source]]",
        'name = "one"',
        "[[tool.poetry.source]]",
        'name = "two"',
        'description = """',
        "first line",
        'second "quoted" line"""',
        "literal = '''C:\\path'''",
        "flag = true",
      ].join("\n"),
    );
    const dependencies = tomlLookup(document, ["project", "dependencies"]);
    assert.equal(dependencies?.type, "array");
    assert.deepEqual(
      dependencies.type === "array" && dependencies.items.map((i) => (i.type === "string" ? [i.value, i.line] : i.type)),
      [
        ["apache-airflow==2.10.5", 5],
        ["pandas", 6],
      ],
    );
    const major = tomlLookup(document, ["project", "version", "major"]);
    assert.deepEqual(major, { type: "other", raw: "1", line: 8 });
    const airflow = tomlLookup(document, ["tool", "poetry", "dependencies", "apache-airflow", "version"]);
    assert.deepEqual(airflow, { type: "string", value: "^2.10", line: 11 });
    assert.deepEqual(tomlLookup(document, ["tool", "poetry", "dependencies", "quoted.key"]), { type: "string", value: "a\tbé", line: 12 });
    const sources = tomlLookup(document, ["tool", "poetry", "source"]);
    assert.equal(sources?.type === "array" && sources.items.length, 2);
    const second = sources?.type === "array" ? sources.items[1] : undefined;
    assert.equal(second?.type === "table" && second.entries.get("description")?.type === "string" && (second.entries.get("description") as { value: string }).value, 'first line\nsecond "quoted" line');
    assert.deepEqual(second?.type === "table" && second.entries.get("literal"), { type: "string", value: "C:\\path", line: 21 });
    assert.deepEqual(second?.type === "table" && second.entries.get("flag"), { type: "other", raw: "true", line: 22 });
  });

  test("rejects text it cannot read", () => {
    assert.throws(() => parseToml('[project\nname = "x"'), TomlError);
    assert.throws(() => parseToml('name = "unterminated'), TomlError);
    assert.throws(() => parseToml('= "no key"'), TomlError);
    assert.throws(() => parseToml("dependencies = [1, 2"), TomlError);
    assert.throws(() => parseToml('a = "x" b = "y"'), TomlError);
  });

  test("rejects, with the line, what TOML forbids", () => {
    const lineOf = (text: string) => {
      try {
        parseToml(text);
      } catch (error) {
        if (error instanceof TomlError) return [error.line, error.reason];
        throw error;
      }
      return undefined;
    };
    assert.deepEqual(lineOf('a = "x"\n\na = "y"'), [3, "a is given twice"]);
    assert.deepEqual(lineOf("[t]\nx = 1\n[t]\ny = 2"), [3, "the table [t] is defined twice"]);
    assert.deepEqual(lineOf('t = "x"\n[t.u]'), [2, "t already has a value, so it cannot be a table here"]);
    assert.deepEqual(lineOf("t = { a = 1 }\nt.b = 2"), [2, "t already has a value, so it cannot be a table here"]);
    assert.deepEqual(lineOf("x = [1]\n[[x]]"), [2, "x already has a value, so it cannot be an array of tables"]);
    assert.deepEqual(lineOf("select = AS101"), [1, "AS101 is not a TOML value (strings need quotes)"]);
    for (const valid of ["1_000", "-0.5e3", "0xDEAD_beef", "inf", "true", "1979-05-27T07:32:00Z", "1979-05-27 07:32:00.5+01:00", "07:32"]) {
      assert.equal(lineOf(`v = ${valid}`), undefined, valid);
    }
    // Tables named by headers after their subtables, dotted keys and arrays of tables stay valid.
    assert.equal(lineOf("[a.b]\nx = 1\n[a]\ny = 2\n[[c]]\n[[c]]\n[c.d]\nk.l = 1\nk.m = 2"), undefined);
  });
});

describe("requirements and constraints files", () => {
  test("an exact pin, with extras", () => {
    assert.equal(brief(pinIn({ "requirements.txt": "pandas==2.2.2\napache-airflow[celery]==2.10.5\n" })), "2.10.5 below33=true /repo/requirements.txt:2");
  });

  test("an upper bound as written, after comments, options and continuation lines", () => {
    const requirements = [
      "# the scheduler's packages",
      "--index-url https://pypi.org/simple",
      "-e ./plugins",
      "apache-airflow>=2.8, \\",
      "    <3.3  # no state stores yet",
    ].join("\n");
    assert.equal(brief(pinIn({ "requirements.txt": requirements })), ">=2.8,<3.3 below33=true /repo/requirements.txt:4");
  });

  test("hashes after the requirement", () => {
    assert.equal(brief(pinIn({ "requirements.txt": "apache-airflow==3.2.1 --hash=sha256:abc\n" })), "3.2.1 below33=true /repo/requirements.txt:1");
  });

  test("a pin of 3.3 or later is known and not below", () => {
    assert.equal(brief(pinIn({ "requirements.txt": "apache-airflow==3.3.0\n" })), "3.3.0 below33=false /repo/requirements.txt:1");
  });

  test("a lower bound only, no version, or an unexpanded variable: no pin", () => {
    assert.equal(pinIn({ "requirements.txt": "apache-airflow>=3.0\n" }), undefined);
    assert.equal(pinIn({ "requirements.txt": "apache-airflow\n" }), undefined);
    assert.equal(pinIn({ "requirements.txt": "apache-airflow==${AIRFLOW_VERSION}\n" }), undefined);
  });

  test("providers do not pin Airflow", () => {
    assert.equal(pinIn({ "requirements.txt": "apache-airflow-providers-google==10.0.0\n" }), undefined);
  });

  test("follows -r includes, relative to the including file", () => {
    const pin = pinIn({
      "requirements.txt": "-r requirements/base.txt\npandas\n",
      "requirements/base.txt": "--requirement=airflow.txt\n",
      "requirements/airflow.txt": "apache-airflow==2.9.3\n",
    });
    assert.equal(brief(pin), "2.9.3 below33=true /repo/requirements/airflow.txt:1");
  });

  test("follows -c constraints files", () => {
    const pin = pinIn({ "requirements.txt": "apache-airflow\n-c pins/constraints.txt\n", "pins/constraints.txt": "apache-airflow==3.2.1\n" });
    assert.equal(brief(pin), "3.2.1 below33=true /repo/pins/constraints.txt:1");
  });

  test("reads the version from Airflow's official constraints URL", () => {
    const pin = pinIn({
      "requirements.txt": 'apache-airflow[postgres]\n--constraint "https://raw.githubusercontent.com/apache/airflow/constraints-2.10.5/constraints-3.11.txt"\n',
    });
    assert.equal(brief(pin), "2.10.5 below33=true /repo/requirements.txt:2");
  });

  test("survives include cycles and missing includes", () => {
    const pin = pinIn({ "requirements.txt": "-r other.txt\n-r missing.txt\napache-airflow<3.3\n", "other.txt": "-r requirements.txt\n" });
    assert.equal(brief(pin), "<3.3 below33=true /repo/requirements.txt:3");
  });

  test("constraints*.txt on its own, and before requirements*.txt", () => {
    assert.equal(brief(pinIn({ "constraints-3.11.txt": "apache-airflow==2.10.4\n" })), "2.10.4 below33=true /repo/constraints-3.11.txt:1");
    assert.equal(brief(pinIn({ "requirements.txt": "apache-airflow==3.3.0\n", "constraints.txt": "apache-airflow==3.2.0\n" })), "3.2.0 below33=true /repo/constraints.txt:1");
  });

  test("requirements.txt before requirements-dev.txt", () => {
    const pin = pinIn({ "requirements-dev.txt": "apache-airflow==2.10.5\n", "requirements.txt": "apache-airflow==3.3.0\n" });
    assert.equal(brief(pin), "3.3.0 below33=false /repo/requirements.txt:1");
  });
});

describe("pyproject.toml", () => {
  test("PEP 621 dependencies", () => {
    const pyproject = '[project]\nname = "dags"\ndependencies = [\n  "pandas",\n  "apache-airflow[celery]~=3.2.0",\n]\n';
    assert.equal(brief(pinIn({ "pyproject.toml": pyproject })), "~=3.2.0 below33=true /repo/pyproject.toml:5");
  });

  test("PEP 621 optional dependencies", () => {
    const pyproject = '[project]\nname = "dags"\n\n[project.optional-dependencies]\nairflow = ["apache-airflow==2.10.5"]\n';
    assert.equal(brief(pinIn({ "pyproject.toml": pyproject })), "2.10.5 below33=true /repo/pyproject.toml:5");
  });

  test("Poetry: a caret constraint, a bare version, an inline table, a group", () => {
    assert.equal(brief(pinIn({ "pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.11"\napache-airflow = "^2.10"\n' })), "^2.10 below33=true /repo/pyproject.toml:3");
    assert.equal(brief(pinIn({ "pyproject.toml": '[tool.poetry.dependencies]\napache-airflow = "2.10.5"\n' })), "2.10.5 below33=true /repo/pyproject.toml:2");
    assert.equal(
      brief(pinIn({ "pyproject.toml": '[tool.poetry.dependencies]\napache-airflow = { version = "~3.2", extras = ["celery"] }\n' })),
      "~3.2 below33=true /repo/pyproject.toml:2",
    );
    assert.equal(brief(pinIn({ "pyproject.toml": '[tool.poetry.group.dev.dependencies]\napache-airflow = "^3.3"\n' })), "^3.3 below33=false /repo/pyproject.toml:2");
  });

  test("uv: constraint dependencies cap what the dependencies leave open; overrides come first", () => {
    const constrained = '[project]\ndependencies = ["apache-airflow>=2.8"]\n\n[tool.uv]\nconstraint-dependencies = ["apache-airflow<3.3"]\n';
    assert.equal(brief(pinIn({ "pyproject.toml": constrained })), "<3.3 below33=true /repo/pyproject.toml:5");
    const overridden = '[project]\ndependencies = ["apache-airflow==2.10.5"]\n\n[tool.uv]\noverride-dependencies = ["apache-airflow==3.3.1"]\n';
    assert.equal(brief(pinIn({ "pyproject.toml": overridden })), "3.3.1 below33=false /repo/pyproject.toml:5");
  });

  test("PEP 735 dependency groups", () => {
    const pyproject = '[dependency-groups]\ndev = [{ include-group = "test" }, "apache-airflow==2.11.0"]\n';
    assert.equal(brief(pinIn({ "pyproject.toml": pyproject })), "2.11.0 below33=true /repo/pyproject.toml:2");
  });

  test("a pyproject.toml that names Airflow without a cap, or that cannot be read, pins nothing", () => {
    assert.equal(pinIn({ "pyproject.toml": '[project]\ndependencies = ["apache-airflow>=3"]\n' }), undefined);
    assert.equal(pinIn({ "pyproject.toml": '[project\ndependencies = ["apache-airflow==2.10.5"]\n' }), undefined);
  });
});

describe("setup.cfg and setup.py", () => {
  test("setup.cfg install_requires, one requirement per line", () => {
    const cfg = "[metadata]\nname = dags\n\n[options]\ninstall_requires =\n    pandas\n    apache-airflow==2.10.5\npackages = find:\n";
    assert.equal(brief(pinIn({ "setup.cfg": cfg })), "2.10.5 below33=true /repo/setup.cfg:7");
  });

  test("setup.cfg: a value on the key's line, and extras", () => {
    assert.equal(brief(pinIn({ "setup.cfg": "[options]\ninstall_requires = apache-airflow<3.3\n" })), "<3.3 below33=true /repo/setup.cfg:2");
    assert.equal(brief(pinIn({ "setup.cfg": "[options.extras_require]\nairflow =\n    apache-airflow==2.9.0\n" })), "2.9.0 below33=true /repo/setup.cfg:3");
    assert.equal(pinIn({ "setup.cfg": "[metadata]\ndescription = apache-airflow==2.9.0\n" }), undefined);
  });

  test("setup.py install_requires list literal", () => {
    const setup = 'from setuptools import setup\n\nsetup(\n    name="dags",\n    install_requires=[\n        "pandas",\n        "apache-airflow==2.10.5",\n    ],\n)\n';
    assert.equal(brief(pinIn({ "setup.py": setup })), "2.10.5 below33=true /repo/setup.py:7");
  });

  test("setup.py through a name, a sum of lists, and extras_require", () => {
    const setup = [
      "import setuptools",
      'BASE = ["pandas"]',
      'AIRFLOW = ["apache-airflow~=2.10.0"]',
      "setuptools.setup(install_requires=BASE + AIRFLOW)",
    ].join("\n");
    assert.equal(brief(pinIn({ "setup.py": setup })), "~=2.10.0 below33=true /repo/setup.py:3");
    const extras = 'from setuptools import setup\nsetup(extras_require={"airflow": ["apache-airflow==3.2.0"]})\n';
    assert.equal(brief(pinIn({ "setup.py": extras })), "3.2.0 below33=true /repo/setup.py:2");
  });

  test("setup.py is never run: a computed list pins nothing", () => {
    const setup = 'from setuptools import setup\nsetup(install_requires=open("requirements.txt").read().split())  # apache-airflow\n';
    assert.equal(pinIn({ "setup.py": setup }), undefined);
  });
});

describe("Dockerfile", () => {
  test("apache/airflow images, slim images and registries", () => {
    assert.equal(brief(pinIn({ Dockerfile: "FROM apache/airflow:3.2.1-python3.11\nRUN pip install pandas\n" })), "3.2.1 below33=true /repo/Dockerfile:1");
    assert.equal(brief(pinIn({ Dockerfile: "FROM --platform=linux/amd64 docker.io/apache/airflow:slim-2.10.5-python3.12 AS base\n" })), "2.10.5 below33=true /repo/Dockerfile:1");
    assert.equal(brief(pinIn({ Dockerfile: "from apache/airflow:3.3.0\n" })), "3.3.0 below33=false /repo/Dockerfile:1");
  });

  test("latest, untagged and digest-only images pin nothing", () => {
    assert.equal(pinIn({ Dockerfile: "FROM apache/airflow:latest\n" }), undefined);
    assert.equal(pinIn({ Dockerfile: "FROM apache/airflow\n" }), undefined);
    assert.equal(pinIn({ Dockerfile: "FROM apache/airflow@sha256:0123abcd\n" }), undefined);
  });

  test("build arguments declared before FROM, with the argument's line as the source", () => {
    const dockerfile = "# syntax=docker/dockerfile:1\nARG AIRFLOW_VERSION=2.10.5\nARG PYTHON=3.11\nFROM apache/airflow:${AIRFLOW_VERSION}-python${PYTHON}\n";
    assert.equal(brief(pinIn({ Dockerfile: dockerfile })), "2.10.5 below33=true /repo/Dockerfile:2");
    assert.equal(brief(pinIn({ Dockerfile: "ARG AIRFLOW_VERSION\nFROM apache/airflow:${AIRFLOW_VERSION:-3.2.0}\n" })), "3.2.0 below33=true /repo/Dockerfile:2");
    assert.equal(pinIn({ Dockerfile: "ARG AIRFLOW_VERSION\nFROM apache/airflow:${AIRFLOW_VERSION}\n" }), undefined);
  });

  test("the last Airflow stage counts, through stage names", () => {
    const dockerfile = ["FROM apache/airflow:2.10.5 AS build", "RUN pip wheel .", "FROM build AS runtime", "COPY dags /opt/airflow/dags"].join("\n");
    assert.equal(brief(pinIn({ Dockerfile: dockerfile })), "2.10.5 below33=true /repo/Dockerfile:1");
    const later = ["FROM python:3.11 AS tools", "FROM apache/airflow:3.3.0", "FROM apache/airflow:3.2.1 \\", "    AS final"].join("\n");
    assert.equal(brief(pinIn({ Dockerfile: later })), "3.2.1 below33=true /repo/Dockerfile:3");
  });

  test("Astro Runtime, Airflow 2 format: below 3.3, with the Airflow version where known", () => {
    const pin = pinIn({ Dockerfile: "FROM quay.io/astronomer/astro-runtime:13.0.0\n" });
    assert.equal(brief(pin), "13.0.0 below33=true /repo/Dockerfile:1");
    assert.deepEqual(pin?.astroRuntime, { airflow: "2.11" });
    assert.equal(describePin(pin!), "Astro Runtime 13.0.0 (Airflow 2.11)");
    assert.deepEqual(pinIn({ Dockerfile: "FROM quay.io/astronomer/astro-runtime:12.6.0-base\n" })?.astroRuntime, { airflow: "2.10" });
    assert.deepEqual(pinIn({ Dockerfile: "FROM quay.io/astronomer/astro-runtime:2.1.1\n" })?.astroRuntime, { airflow: "2" });
  });

  test("Astro Runtime, Airflow 3 format: the Airflow minor version is in the tag", () => {
    const pin = pinIn({ Dockerfile: "FROM astrocrpublic.azurecr.io/runtime:3.0-1\n" });
    assert.equal(brief(pin), "3.0-1 below33=true /repo/Dockerfile:1");
    assert.equal(describePin(pin!), "Astro Runtime 3.0-1 (Airflow 3.0)");
    assert.equal(pinIn({ Dockerfile: "FROM astrocrpublic.azurecr.io/runtime:3.1-2-python-3.12\n" })?.below33, true);
    assert.equal(pinIn({ Dockerfile: "FROM astrocrpublic.azurecr.io/runtime:3.3-1\n" })?.below33, false);
    assert.equal(pinIn({ Dockerfile: "FROM quay.io/astronomer/astro-runtime:latest\n" }), undefined);
  });

  test("an image that is not Airflow's does not end the search", () => {
    assert.equal(brief(pinIn({ Dockerfile: "FROM python:3.11\n", "requirements.txt": "apache-airflow==2.10.5\n" })), "2.10.5 below33=true /repo/requirements.txt:1");
  });

  test("the Dockerfile comes before the requirements of the same folder", () => {
    const pin = pinIn({ Dockerfile: "FROM apache/airflow:3.3.0\n", "requirements.txt": "apache-airflow==2.10.5\n" });
    assert.equal(brief(pin), "3.3.0 below33=false /repo/Dockerfile:1");
  });
});

describe("which folder decides", () => {
  test("the nearest folder naming Airflow wins", () => {
    const pin = pinIn({ "requirements.txt": "apache-airflow==3.3.0\n", "dags/requirements.txt": "apache-airflow==2.10.5\n" });
    assert.equal(brief(pin), "2.10.5 below33=true /repo/dags/requirements.txt:1");
  });

  test("folders whose files do not name Airflow are passed through", () => {
    const pin = pinIn({ "requirements.txt": "apache-airflow==2.10.5\n", "dags/requirements.txt": "pandas\n", "dags/pyproject.toml": "[project]\nname = 'x'\n" });
    assert.equal(brief(pin), "2.10.5 below33=true /repo/requirements.txt:1");
  });

  test("a nearer folder naming Airflow without a cap ends the search with no pin", () => {
    assert.equal(pinIn({ "requirements.txt": "apache-airflow==2.10.5\n", "dags/requirements.txt": "apache-airflow>=3.3\n" }), undefined);
  });

  test("the search stops at the repository root", () => {
    assert.equal(pinIn({ "/requirements.txt": "apache-airflow==2.10.5\n" }), undefined);
  });

  test("without a repository it goes up to the file system root", () => {
    const resolver = new AirflowVersionResolver(memoryFiles({ "/requirements.txt": "apache-airflow==2.10.5\n", "/home/me/dags/dag.py": "" }));
    assert.equal(brief(resolver.pinFor("/home/me/dags/dag.py")), "2.10.5 below33=true /requirements.txt:1");
  });

  test("no project files at all: no pin", () => {
    assert.equal(pinIn({}), undefined);
  });
});

describe("the cache", () => {
  test("reads each folder once, and again after invalidate", () => {
    const texts: Record<string, string> = {
      "/repo/.git/HEAD": "",
      "/repo/requirements.txt": "apache-airflow==2.10.5\n",
      "/repo/dags/a.py": "",
      "/repo/dags/b.py": "",
    };
    const files = memoryFiles(texts);
    const resolver = new AirflowVersionResolver(files);
    assert.equal(resolver.pinFor("/repo/dags/a.py")?.version, "2.10.5");
    const readsAfterFirst = files.reads.length;
    assert.equal(resolver.pinFor("/repo/dags/b.py")?.version, "2.10.5");
    assert.equal(files.reads.length, readsAfterFirst, "a second file of the same folder is answered from the cache");

    texts["/repo/requirements.txt"] = "apache-airflow==3.3.0\n";
    assert.equal(resolver.pinFor("/repo/dags/a.py")?.version, "2.10.5", "unchanged until invalidated");
    assert.equal(resolver.invalidate("/repo/requirements.txt"), true);
    assert.equal(resolver.pinFor("/repo/dags/a.py")?.version, "3.3.0");
  });

  test("a new pin file in a nearer folder is seen after invalidating it", () => {
    const texts: Record<string, string> = { "/repo/.git/HEAD": "", "/repo/requirements.txt": "apache-airflow==3.3.0\n", "/repo/dags/a.py": "" };
    const resolver = new AirflowVersionResolver(memoryFiles(texts));
    assert.equal(resolver.pinFor("/repo/dags/a.py")?.version, "3.3.0");
    texts["/repo/dags/Dockerfile"] = "FROM apache/airflow:2.10.5\n";
    assert.equal(resolver.invalidate("/repo/dags/Dockerfile"), true);
    assert.equal(resolver.pinFor("/repo/dags/a.py")?.version, "2.10.5");
  });

  test("a change to an included file outside the folder invalidates the folders that read it", () => {
    const texts: Record<string, string> = {
      "/repo/.git/HEAD": "",
      "/repo/dags/requirements.txt": "-r ../shared/pins.in\n",
      "/repo/shared/pins.in": "apache-airflow==2.10.5\n",
      "/repo/dags/a.py": "",
    };
    const resolver = new AirflowVersionResolver(memoryFiles(texts));
    assert.equal(resolver.pinFor("/repo/dags/a.py")?.version, "2.10.5");
    texts["/repo/shared/pins.in"] = "apache-airflow==3.3.0\n";
    assert.equal(resolver.invalidate("/repo/shared/pins.in"), true);
    assert.equal(resolver.pinFor("/repo/dags/a.py")?.version, "3.3.0");
  });

  test("a deleted folder drops the scans beneath it", () => {
    const texts: Record<string, string> = { "/repo/.git/HEAD": "", "/repo/dags/team/requirements.txt": "apache-airflow==2.10.5\n", "/repo/dags/team/a.py": "" };
    const resolver = new AirflowVersionResolver(memoryFiles(texts));
    assert.equal(resolver.pinFor("/repo/dags/team/a.py")?.version, "2.10.5");
    delete texts["/repo/dags/team/requirements.txt"];
    assert.equal(resolver.invalidate("/repo/dags"), true);
    assert.equal(resolver.pinFor("/repo/dags/team/a.py"), undefined);
  });

  test("changes to files that cannot hold a pin drop nothing", () => {
    const resolver = new AirflowVersionResolver(memoryFiles({ "/repo/.git/HEAD": "", "/repo/requirements.txt": "apache-airflow==2.10.5\n", "/repo/dags/a.py": "" }));
    resolver.pinFor("/repo/dags/a.py");
    assert.equal(resolver.invalidate("/repo/dags/a.py"), false);
    assert.equal(resolver.invalidate("/repo/README.md"), false);
  });
});

describe("reading the disk", () => {
  test("finds the pin of a project in a temporary folder", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "airflow-pin-"));
    try {
      fs.mkdirSync(path.join(root, ".git"));
      fs.mkdirSync(path.join(root, "dags"));
      fs.writeFileSync(path.join(root, "requirements.txt"), "apache-airflow==2.10.5\n");
      fs.writeFileSync(path.join(root, "dags", "dag.py"), "");
      const pin = new AirflowVersionResolver(diskProjectFiles).pinFor(path.join(root, "dags", "dag.py"));
      assert.deepEqual(pin, { version: "2.10.5", below33: true, source: { path: path.join(root, "requirements.txt"), line: 1 } });
      assert.equal(describePin(pin!), "Airflow 2.10.5");
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

const PIN_2_10: AirflowPin = { version: "2.10.5", below33: true, source: { path: "/repo/requirements.txt", line: 3 } };
const PIN_3_3: AirflowPin = { version: "3.3.0", below33: false, source: { path: "/repo/requirements.txt", line: 3 } };

function findings(code: string, text: string, airflowPin: AirflowPin | undefined): Diagnostic[] {
  return lint(new PythonDocument("file:///repo/dags/dag.py", text), { select: [code], airflowPin, path: "/repo/dags/dag.py" });
}

/** `line: what fails` for each finding (the message up to its first colon), to compare in one assertion. */
function lines(diagnostics: Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.range.start.line + 1}: ${d.message.split(": ")[0]}`);
}

describe("the pin in messages", () => {
  test("names the version and where it is written, relative to the DAG file", () => {
    assert.equal(pinStatement(PIN_2_10, "/repo/dags/dag.py"), "the project pins Airflow 2.10.5 (../requirements.txt:3)");
    const runtime: AirflowPin = { version: "13.0.0", below33: true, source: { path: "/repo/Dockerfile", line: 1 }, astroRuntime: { airflow: "2.11" } };
    assert.equal(pinStatement(runtime, "/repo/dag.py"), "the project's image is Astro Runtime 13.0.0, which ships Airflow 2.11 (Dockerfile:1)");
  });
});

describe("AS501 given a pin", () => {
  const taskParameter = ["from airflow.sdk import task", "", "@task", "def load(task_state_store=None):", '    task_state_store.set("done", True)', ""].join("\n");

  test("reports a task's store parameter at its first use, once per file", () => {
    const text = taskParameter + ["@task", "def again(task_state_store=None):", '    task_state_store.set("again", True)', ""].join("\n");
    const diagnostics = findings("AS501", text, PIN_2_10);
    assert.deepEqual(lines(diagnostics), ["5: Airflow never passes `task_state_store` to this task, so the parameter keeps its default `None`"]);
    assert.equal(diagnostics[0].severity, "error");
    assert.match(diagnostics[0].message, /the project pins Airflow 2\.10\.5 \(\.\.\/requirements\.txt:3\)/);
  });

  test("is silent without a pin, and with a pin of 3.3 or later", () => {
    assert.deepEqual(findings("AS501", taskParameter, undefined), []);
    assert.deepEqual(findings("AS501", taskParameter, PIN_3_3), []);
  });

  test("context.get returns None", () => {
    const text = ["from airflow.sdk import task", "@task", "def load(**context):", '    store = context.get("asset_state_store")', ""].join("\n");
    assert.deepEqual(lines(findings("AS501", text, PIN_2_10)), ['4: `context.get("asset_state_store")` returns `None` at run time']);
  });

  test("importing NEVER_EXPIRE fails, and it comes first", () => {
    const text = ["from airflow.sdk import NEVER_EXPIRE, task", "@task", "def load(**context):", '    context["task_state_store"].set("k", 1, retention=NEVER_EXPIRE)', ""].join("\n");
    assert.deepEqual(lines(findings("AS501", text, PIN_2_10)), ["1: Importing `NEVER_EXPIRE` from `airflow.sdk` fails with `ImportError`"]);
  });

  test("a helper's store parameter, and python_callable tasks", () => {
    const helper = ["def record(task_state_store, value):", '    task_state_store.set("value", value)', ""].join("\n");
    assert.deepEqual(lines(findings("AS501", helper, PIN_2_10)), ["2: `task_state_store` can never hold a state store"]);
    const callable = [
      "from airflow.providers.standard.operators.python import PythonOperator",
      "def load(task_state_store):",
      '    task_state_store.set("done", True)',
      'PythonOperator(task_id="load", python_callable=load)',
      "",
    ].join("\n");
    assert.deepEqual(lines(findings("AS501", callable, PIN_2_10)), ["3: Airflow never passes `task_state_store` to this task, so calling the task fails with `TypeError`"]);
  });

  test("names that are not store uses stay silent", () => {
    const text = [
      "from airflow.sdk import task",
      "@task",
      "def load(task_state_store=None, settings=None):",
      "    print(settings.task_state_store)",
      "    configure(task_state_store=False)",
      '    print("task_state_store")',
      "",
    ].join("\n");
    assert.deepEqual(findings("AS501", text, PIN_2_10), []);
  });
});

describe("AS502 given a pin", () => {
  const mixin = [
    "from airflow.sdk import BaseOperator, ResumableJobMixin",
    "class BatchOperator(ResumableJobMixin, BaseOperator):",
    "    pass",
    "class NightlyOperator(BatchOperator):",
    "    pass",
    "",
  ].join("\n");

  test("reports a mixin hierarchy at its root class", () => {
    assert.deepEqual(lines(findings("AS502", mixin, PIN_2_10)), ["2: `BatchOperator` relies on `ResumableJobMixin`, which does not store job ids below Airflow 3.3"]);
    const [finding] = findings("AS502", mixin, PIN_2_10);
    assert.match(finding.message, /the project pins Airflow 2\.10\.5 \(\.\.\/requirements\.txt:3\)/);
    assert.match(finding.message, /Importing it from `airflow\.sdk` fails/);
  });

  test("is silent without a pin, and with a pin of 3.3 or later", () => {
    assert.deepEqual(findings("AS502", mixin, undefined), []);
    assert.deepEqual(findings("AS502", mixin, PIN_3_3), []);
  });

  test("a mixin imported from elsewhere is the shim", () => {
    const text = ["from vendor.compat import ResumableJobMixin", "class BatchOperator(ResumableJobMixin):", "    pass", ""].join("\n");
    const [finding] = findings("AS502", text, PIN_2_10);
    assert.match(finding.message, /Below 3\.3 the mixin is the providers' shim/);
  });

  test("subclasses of provider operators are not reported, their durable=True is", () => {
    const text = [
      "from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator",
      "class MySpark(SparkSubmitOperator):",
      "    pass",
      'job = MySpark(task_id="spark", durable=True)',
      "",
    ].join("\n");
    assert.deepEqual(lines(findings("AS502", text, PIN_2_10)), ["4: `durable=True` does nothing below Airflow 3.3"]);
  });

  test("durable=True on Airflow's classes and on calls with a task_id, not on other libraries' calls", () => {
    const text = [
      "from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator",
      "from vendor.operators import CustomOperator",
      'runs = DatabricksSubmitRunOperator.partial(task_id="run", durable=True).expand(json=[{}])',
      'custom = CustomOperator(task_id="custom", durable=True)',
      'channel.queue_declare(queue="jobs", durable=True)',
      'other = CustomOperator(durable=True)',
      'off = CustomOperator(task_id="off", durable=False)',
      "",
    ].join("\n");
    assert.deepEqual(lines(findings("AS502", text, PIN_2_10)), ["3: `durable=True` does nothing below Airflow 3.3", "4: `durable=True` does nothing below Airflow 3.3"]);
  });
});

describe("a project on disk, end to end", () => {
  test("the resolver's pin reaches the rules through LintOptions", () => {
    const files = memoryFiles({
      "/repo/.git/HEAD": "",
      "/repo/requirements.txt": "apache-airflow==2.10.5\n",
      "/repo/dags/dag.py": "",
    });
    const airflowPin = new AirflowVersionResolver(files).pinFor("/repo/dags/dag.py");
    const text = "from airflow.sdk import task\n@task\ndef load(**context):\n    context['task_state_store'].set('k', 1)\n";
    const [finding] = lint(new PythonDocument("file:///repo/dags/dag.py", text), { airflowPin, path: "/repo/dags/dag.py" });
    assert.equal(finding.code, "AS501");
    assert.equal(finding.message.split(": ")[1], "state stores exist only from Airflow 3.3 on. Here the project pins Airflow 2.10.5 (../requirements.txt:1); upgrade to Airflow 3.3 or later before using them.");
  });
});
