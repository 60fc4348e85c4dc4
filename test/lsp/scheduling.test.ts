/**
 * The language server's scheduling and memory policies, in process: the pause before a lint, which
 * worker a document lives in, which documents keep their syntax trees (and that a document parsed
 * again gives the same diagnostics), and when dropped trees are collected. The protocol tests in
 * server.test.ts cover how they are wired.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Worker } from "node:worker_threads";
import { lint, PythonDocument } from "../../server/src/engine";
import { IMMEDIATE_LINT_BELOW_MS, lintDelayMs, MAX_LINT_DELAY_MS } from "../../server/src/lsp/lintDelay";
import { DiagnosticScheduler } from "../../server/src/lsp/diagnostics";
import { OpenDocuments } from "../../server/src/lsp/documents";
import { exposeCollectorToWorkers, IDLE_COLLECTION_MS, RELEASED_TREES_PER_COLLECTION, Timers, TreeCollector } from "../../server/src/lsp/treeCollector";
import { IDLE_TREE_MS, KEPT_FROM_OPENING_CHARACTERS, MAX_EDITED_TREES, WorkerDocuments } from "../../server/src/lsp/workerDocuments";
import { LARGE_DOCUMENT_CHARACTERS, LaneAssignment, QUICK_AGAIN_MS, SLOW_LINT_MS, VERY_SLOW_LINT_MS } from "../../server/src/lsp/workerLanes";

describe("the pause before a lint", () => {
  test("none for a document never linted or whose last lint was quick", () => {
    assert.equal(lintDelayMs(undefined), 0);
    assert.equal(lintDelayMs(0), 0);
    assert.equal(lintDelayMs(IMMEDIATE_LINT_BELOW_MS - 0.1), 0);
  });

  test("grows with the last lint's time, up to its bound", () => {
    const delays = [IMMEDIATE_LINT_BELOW_MS, IMMEDIATE_LINT_BELOW_MS + 40, 500, 60_000].map(lintDelayMs);
    assert.ok(delays[0] > 0, "a lint at the threshold earns a pause");
    for (let i = 1; i < delays.length; i++) assert.ok(delays[i] >= delays[i - 1], `not decreasing: ${delays}`);
    assert.ok(delays[1] < IMMEDIATE_LINT_BELOW_MS + 40, "shorter than the lint it saves");
    assert.equal(delays[delays.length - 1], MAX_LINT_DELAY_MS);
  });

  test("a nonsensical time is treated as unknown", () => {
    assert.equal(lintDelayMs(Number.NaN), 0);
    assert.equal(lintDelayMs(Number.POSITIVE_INFINITY), 0);
    assert.equal(lintDelayMs(-5), 0);
  });
});

describe("the pause before a lint, as the scheduler keeps it", () => {
  /** A scheduler over one open document whose lints take `elapsed.ms` each, and the versions it linted. */
  function schedulerOverOneDocument() {
    const documents = new OpenDocuments();
    const uri = "file:///dags/a.py";
    const document = documents.open({ uri, languageId: "python", version: 1, text: "x = 1\n" })!;
    const linted: number[] = [];
    const elapsed = { ms: 0 };
    const worker = { lint: async (_uri: string, version: number) => (linted.push(version), { version, relevant: false, diagnostics: [], elapsedMs: elapsed.ms }) };
    const settings = { forDocument: async () => ({ enable: true, severities: {}, configurationPreference: "editorFirst" }) };
    const baseline = { textFor: () => undefined, ensure: () => undefined };
    const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    const scheduler = new DiagnosticScheduler(documents, worker as never, settings as never, baseline as never, { publish: () => undefined }, quiet as never);
    const change = () => {
      document.apply({ textDocument: { uri, version: document.version + 1 }, contentChanges: [{ text: `x = ${document.version + 1}\n` }] });
      scheduler.documentChanged(uri);
    };
    return { scheduler, uri, linted, elapsed, change };
  }

  const settled = () => new Promise((resolve) => setTimeout(resolve, 5));

  test("the lint of an opened document, from scratch, does not make the first change wait; a slow lint of a change does", async () => {
    const { scheduler, uri, linted, elapsed, change } = schedulerOverOneDocument();
    try {
      elapsed.ms = 60_000;
      scheduler.schedule(uri);
      await settled();
      assert.deepEqual(linted, [1]);
      change();
      await settled();
      assert.deepEqual(linted, [1, 2], "linted at once, however slow the lint on opening was");
      change();
      await settled();
      assert.deepEqual(linted, [1, 2], "waits after a slow lint of a change");
      const pause = () => new Promise((resolve) => setTimeout(resolve, MAX_LINT_DELAY_MS + 20));
      await pause();
      assert.deepEqual(linted, [1, 2, 3]);
      elapsed.ms = IMMEDIATE_LINT_BELOW_MS - 1;
      change();
      await settled();
      assert.deepEqual(linted, [1, 2, 3], "the last lint of a change was slow: still a pause");
      await pause();
      change();
      await settled();
      assert.deepEqual(linted, [1, 2, 3, 4, 5], "after a quick lint of a change, at once");
    } finally {
      scheduler.dispose();
    }
  });
});

describe("which worker a document lives in", () => {
  test("small documents start quick, large ones slow", () => {
    const lanes = new LaneAssignment();
    assert.equal(lanes.opened("file:///small.py", 2_000), "quick");
    assert.equal(lanes.opened("file:///huge.py", LARGE_DOCUMENT_CHARACTERS), "slow");
    assert.equal(lanes.laneOf("file:///small.py"), "quick");
    assert.equal(lanes.laneOf("file:///huge.py"), "slow");
    assert.equal(lanes.laneOf("file:///never-opened.py"), "quick");
    assert.ok(lanes.hasSlowDocuments());
  });

  test("two slow lints in a row move a document out of the quick worker; it comes back only once clearly quick and small", () => {
    const lanes = new LaneAssignment();
    const uri = "file:///grows.py";
    lanes.opened(uri, 10_000);
    assert.equal(lanes.linted(uri, SLOW_LINT_MS - 1, 10_000), undefined, "stays while under the threshold");
    assert.equal(lanes.linted(uri, SLOW_LINT_MS, 10_000), undefined, "one slow lint may be the machine's pause");
    assert.equal(lanes.linted(uri, 1, 10_000), undefined);
    assert.equal(lanes.linted(uri, SLOW_LINT_MS, 10_000), undefined, "the quick lint in between reset the count");
    assert.equal(lanes.linted(uri, SLOW_LINT_MS, 10_000), "slow");
    assert.equal(lanes.linted(uri, SLOW_LINT_MS - 1, 10_000), undefined, "no move back just under the threshold");
    assert.equal(lanes.linted(uri, QUICK_AGAIN_MS - 1, LARGE_DOCUMENT_CHARACTERS), undefined, "a large document stays, however quick");
    assert.equal(lanes.linted(uri, QUICK_AGAIN_MS - 1, 10_000), "quick");
    assert.equal(lanes.laneOf(uri), "quick");
    assert.equal(lanes.hasSlowDocuments(), false);
  });

  test("one very slow lint is enough", () => {
    const lanes = new LaneAssignment();
    lanes.opened("file:///deep.py", 5_000);
    assert.equal(lanes.linted("file:///deep.py", VERY_SLOW_LINT_MS, 5_000), "slow");
  });

  test("closing forgets the document", () => {
    const lanes = new LaneAssignment();
    lanes.opened("file:///huge.py", LARGE_DOCUMENT_CHARACTERS * 2);
    lanes.closed("file:///huge.py");
    assert.equal(lanes.hasSlowDocuments(), false);
    assert.equal(lanes.laneOf("file:///huge.py"), "quick");
  });
});

const DAG = `from airflow.sdk import dag, task


@task
def remember(task_state_store=None):
    task_state_store.set("cursor", None)
    return 1


@task
def count(task_state_store=None):
    task_state_store.set("n", None)
`;

/** A DAG long enough to keep its tree from its opening, and one large enough to count as edited until it is idle. */
const LONG = `${DAG}\n${"# filler line of a long DAG file\n".repeat(Math.ceil(KEPT_FROM_OPENING_CHARACTERS / 32))}`;
const LARGE = `${DAG}\n${"# filler line of a large DAG file\n".repeat(Math.ceil(LARGE_DOCUMENT_CHARACTERS / 34))}`;

function findings(document: PythonDocument): string[] {
  return lint(document, { severities: {} }).map((d) => `${d.code}@${d.range.start.line}:${d.range.start.character} ${d.message}`);
}

class FakeClock {
  time = 1_000_000;
  readonly now = () => this.time;
}

describe("which documents keep their syntax trees", () => {
  test("an opened document not edited for a while lets its tree go after use, and parsed again gives the same diagnostics", () => {
    const clock = new FakeClock();
    const documents = new WorkerDocuments(clock.now);
    try {
      documents.open("file:///a.py", DAG, 1);
      const used = documents.get("file:///a.py")!;
      const before = findings(used);
      assert.ok(before.length >= 2, `the fixture has findings: ${before}`);
      clock.time += IDLE_TREE_MS;
      assert.equal(documents.settle("file:///a.py"), true);
      const settled = documents.get("file:///a.py")!;
      assert.notEqual(settled, used, "the document holding the tree is gone");
      assert.equal(settled.getText(), DAG);
      assert.equal(settled.version, 1);
      assert.deepEqual(findings(settled), before);
    } finally {
      documents.dispose();
    }
  });

  test("a long document keeps its tree from its opening, as if just edited, until it is idle or another was opened since; a short one does not", () => {
    const clock = new FakeClock();
    const documents = new WorkerDocuments(clock.now);
    try {
      documents.open("file:///short.py", DAG, 1);
      findings(documents.get("file:///short.py")!);
      assert.equal(documents.settle("file:///short.py"), true, "a short document lets its tree go after use");
      const uri = "file:///opened.py";
      for (const text of [LONG, LARGE]) {
        documents.open(uri, text, 1);
        const opened = documents.get(uri)!;
        findings(opened);
        assert.equal(documents.settle(uri), false, "the tree stays after its first lint");
        assert.equal(documents.get(uri), opened);
        clock.time += IDLE_TREE_MS;
        documents.sweep();
        assert.notEqual(documents.get(uri), opened, "idle: the tree was let go");
        assert.equal(documents.get(uri)!.getText(), text);
      }
      const burst = Array.from({ length: MAX_EDITED_TREES + 1 }, (_, i) => `file:///burst${i}.py`);
      for (const opened of burst) {
        documents.open(opened, LONG, 1);
        findings(documents.get(opened)!);
        assert.equal(documents.settle(opened), false, `${opened}: the last opened keeps its tree`);
      }
      for (const opened of burst.slice(0, -1)) assert.equal(documents.isBeingEdited(opened), false, `${opened} let its tree go when the next was opened`);
      const edited = burst[0];
      documents.change(edited, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "#\n" }], 2);
      documents.open("file:///after.py", LONG, 1);
      assert.equal(documents.isBeingEdited(edited), true, "a document changed since its opening keeps its tree when others are opened");
      documents.open("file:///large.py", LARGE, 1);
      documents.open("file:///after-large.py", LONG, 1);
      assert.equal(documents.isBeingEdited("file:///large.py"), true, "a large document keeps its tree when others are opened");
      assert.equal(documents.isBeingEdited("file:///after.py"), false);
    } finally {
      documents.dispose();
    }
  });

  test("every tree a document lets go is told to the collector, whatever lets it go; a document never parsed releases none", () => {
    const clock = new FakeClock();
    let released = 0;
    const documents = new WorkerDocuments(clock.now, () => released++);
    try {
      const burst = Array.from({ length: 6 }, (_, i) => `file:///burst${i}.py`);
      for (const [i, uri] of burst.entries()) {
        documents.open(uri, LONG, 1);
        if (i !== 1) findings(documents.get(uri)!);
        documents.settle(uri);
      }
      assert.equal(released, 4, "each parsed one let its tree go when the next was opened, but the last; the second was never parsed");
      documents.change(burst[0], [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "#\n" }], 2);
      findings(documents.get(burst[0])!);
      assert.equal(released, 4, "an edit of a document without a tree releases none");
      documents.open("file:///short.py", DAG, 1);
      findings(documents.get("file:///short.py")!);
      documents.settle("file:///short.py");
      assert.equal(released, 6, "opening a short document let the last long one's tree go, and the short one let its own go after use");
      clock.time += IDLE_TREE_MS;
      documents.sweep();
      assert.equal(released, 7, "idle: the edited one let its tree go");
    } finally {
      documents.dispose();
    }
  });

  test("an edited document keeps its tree; once dropped, the re-parse of the edited text matches a fresh parse", () => {
    const clock = new FakeClock();
    const documents = new WorkerDocuments(clock.now);
    try {
      const uri = "file:///edited.py";
      documents.open(uri, DAG, 1);
      findings(documents.get(uri)!);
      // Three incremental edits: a new finding, a removed one, a line inserted above both.
      documents.change(uri, [{ range: { start: { line: 11, character: 0 }, end: { line: 11, character: 0 } }, text: '    task_state_store.set("m", None)\n' }], 2);
      documents.change(uri, [{ range: { start: { line: 5, character: 35 }, end: { line: 5, character: 39 } }, text: "1" }], 3);
      const edited = documents.get(uri)!;
      const incremental = findings(edited);
      documents.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "# header\n" }], 4);
      assert.equal(documents.settle(uri), false, "being edited: the tree stays");
      assert.equal(documents.get(uri), edited);
      const text = edited.getText();
      const expected = findings(new PythonDocument(uri, text, 4));
      assert.notDeepEqual(expected, incremental, "the last edit moved the findings");
      assert.deepEqual(findings(edited), expected, "incremental parse");
      clock.time += IDLE_TREE_MS;
      assert.equal(documents.isBeingEdited(uri), false);
      documents.sweep();
      const reparsed = documents.get(uri)!;
      assert.notEqual(reparsed, edited, "idle: the tree was let go");
      assert.equal(reparsed.getText(), text);
      assert.equal(reparsed.version, 4);
      assert.deepEqual(findings(reparsed), expected, "full parse of the same text");
      // Editing again after the drop parses in full once, then incrementally.
      documents.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, text: "" }], 5);
      assert.deepEqual(findings(documents.get(uri)!), findings(new PythonDocument(uri, DAG.replace('set("cursor", None)', 'set("cursor", 1)').replace('set("n", None)\n', 'set("n", None)\n    task_state_store.set("m", None)\n'), 5)));
    } finally {
      documents.dispose();
    }
  });

  test(`only the ${MAX_EDITED_TREES} documents edited most recently keep their trees`, () => {
    const documents = new WorkerDocuments();
    try {
      const uris = Array.from({ length: MAX_EDITED_TREES + 1 }, (_, i) => `file:///d${i}.py`);
      for (const uri of uris) documents.open(uri, DAG, 1);
      const edit = (uri: string, version: number) => documents.change(uri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: "#\n" }], version);
      edit(uris[0], 2);
      const first = documents.get(uris[0])!;
      for (const uri of uris.slice(1)) edit(uri, 2);
      assert.notEqual(documents.get(uris[0]), first, "the least recently edited one lost its tree");
      assert.equal(documents.isBeingEdited(uris[0]), false);
      for (const uri of uris.slice(1)) assert.equal(documents.isBeingEdited(uri), true, uri);
      assert.equal(documents.get(uris[0])!.getText(), "#\n" + DAG, "its text and version survive");
      assert.equal(documents.get(uris[0])!.version, 2);
    } finally {
      documents.dispose();
    }
  });
});

describe("collecting released trees", () => {
  /** Timers the test fires by hand: the idle collection is the only timer the collector sets. */
  function manualTimers(): Timers & { pending(): number[]; fire(): void } {
    let next: { callback: () => void; ms: number } | undefined;
    return {
      setTimeout: (callback, ms) => ((next = { callback, ms }), {}),
      clearTimeout: () => (next = undefined),
      pending: () => (next ? [next.ms] : []),
      fire: () => {
        const due = next;
        next = undefined;
        due?.callback();
      },
    };
  }

  test(`every ${RELEASED_TREES_PER_COLLECTION} released trees during a burst`, () => {
    let collections = 0;
    const collector = new TreeCollector(() => collections++, manualTimers());
    for (let i = 1; i < RELEASED_TREES_PER_COLLECTION; i++) collector.treeReleased();
    assert.equal(collections, 0);
    collector.treeReleased();
    assert.equal(collections, 1);
    for (let i = 0; i < RELEASED_TREES_PER_COLLECTION; i++) collector.treeReleased();
    assert.equal(collections, 2);
  });

  test(`once idle for ${IDLE_COLLECTION_MS} ms after releasing any, never while lints keep coming`, () => {
    let collections = 0;
    const timers = manualTimers();
    const collector = new TreeCollector(() => collections++, timers);
    collector.idle();
    assert.deepEqual(timers.pending(), [], "nothing released, nothing to wait for");
    collector.treeReleased();
    collector.idle();
    assert.deepEqual(timers.pending(), [IDLE_COLLECTION_MS]);
    collector.busy();
    assert.deepEqual(timers.pending(), [], "a lint was asked for: the collection waits for the next idle moment");
    collector.idle();
    timers.fire();
    assert.equal(collections, 1);
    collector.idle();
    assert.deepEqual(timers.pending(), [], "what was released has been collected");
  });

  test("worker threads started after exposeCollectorToWorkers() can call V8's collector", async () => {
    exposeCollectorToWorkers();
    const worker = new Worker("require('node:worker_threads').parentPort.postMessage(typeof gc)", { eval: true });
    const seen = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    assert.equal(seen, "function");
  });
});
