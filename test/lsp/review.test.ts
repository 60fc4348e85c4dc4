/**
 * AS405's two rewrites as code actions, and `airflowStateStore/review` (the "Review this DAG"
 * command's request), against the built server (dist/server.js) in a temporary project that pins
 * Airflow 3.3.1, so the review must carry the pin the lint uses, as well as the rule settings.
 */
import assert from "node:assert/strict";
import { TempFolder } from "../support/tempFolder";
import { after, before, describe, test } from "node:test";
import { CodeAction, ProtocolConnection, ResponseError } from "vscode-languageserver-protocol/node";
import { PythonDocument, reviewMarkdown } from "../../server/src/engine";
import { AirflowVersionResolver, diskProjectFiles } from "../../server/src/engine/project";
import { REVIEW_METHOD, ReviewParams, ReviewResponse } from "../../server/src/lsp/reviewProtocol";
import { LspSession } from "./session";

const HEAD = `from datetime import datetime, timezone

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG, task


def finished(run_id):
    return run_id is not None


@task
def publish():
    pass


with DAG(dag_id="nightly", schedule="@daily", start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
`;

/** A poke-mode sensor waiting for a submit that does not wait: AS405 on line 18 (1-based). */
const SPLIT = `${HEAD}    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=False)
    wait = PythonSensor(task_id="wait", python_callable=finished, op_args=[submit.output])
    submit >> wait >> publish()
`;

const ONE_DEFERRABLE_TASK = `${HEAD}    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=True, deferrable=True)
    submit >> publish()
`;

const ONE_DURABLE_TASK = `${HEAD}    submit = DatabricksSubmitRunOperator(task_id="submit", json={}, wait_for_termination=True, durable=True)
    submit >> publish()
`;

const CLEAN = `from airflow.sdk import task


@task
def save_cursor(task_state_store=None):
    task_state_store.set("cursor", "2026-01-01T00:00:00+00:00")
`;

/** What the session's client sets in `airflowStateStore.rules`, and so what the engine is given here too. */
const SEVERITIES = { AS405: "warning" } as const;

function actions(result: unknown): CodeAction[] {
  assert.ok(Array.isArray(result), "codeAction must answer with an array");
  return result as CodeAction[];
}

describe("language server: AS405's rewrites and the review request", () => {
  let folder: TempFolder;
  let session: LspSession;
  const review = (documentUri: string) => {
    // LspSession sends the standard requests only; this one is the extension's own.
    const connection: ProtocolConnection = session["connection"];
    return connection.sendRequest<ReviewResponse>(REVIEW_METHOD, { uri: documentUri } satisfies ReviewParams);
  };
  /** The engine's review of `text` at `relative`, with everything the server's lint of it uses. */
  const engineReview = (relative: string, text: string) =>
    reviewMarkdown(new PythonDocument(folder.uri(relative), text), {
      path: folder.file(relative),
      severities: SEVERITIES,
      airflowPin: new AirflowVersionResolver(diskProjectFiles).pinFor(folder.file(relative)),
    });

  before(async () => {
    folder = new TempFolder("lsp-review-");
    // `.git` ends the search for a pin, whatever the temp folder's parents hold.
    folder.write(".git/HEAD", "ref: refs/heads/main\n");
    folder.write("requirements.txt", "apache-airflow==3.3.1\n");
    session = await LspSession.start({ initializationOptions: { trusted: false }, workspaceFolders: [folder.root], settings: { rules: SEVERITIES } });
  });

  after(() => {
    session.dispose();
    folder.remove();
  });

  test("AS405 offers two refactor.rewrite actions, neither preferred; each applied gives its one-task DAG", async () => {
    for (const [name, title, expected] of [
      ["deferrable.py", "Airflow State Store (AS405): fold wait into submit: one deferrable task (deferrable=True, wait_for_termination=True; needs a Triggerer)", ONE_DEFERRABLE_TASK],
      ["durable.py", "Airflow State Store (AS405): fold wait into submit: one durable task (wait_for_termination=True, durable=True)", ONE_DURABLE_TASK],
    ]) {
      const dag = folder.uri(`dags/${name}`);
      const { diagnostics } = await session.open(dag, SPLIT);
      const as405 = diagnostics.filter((d) => d.code === "AS405");
      assert.deepEqual(as405.map((d) => d.range.start.line), [17]);
      const offered = actions(await session.codeActions(dag, { range: as405[0].range, context: { diagnostics: as405 } }));
      assert.deepEqual(
        offered.map((a) => [a.title, a.kind, a.isPreferred === true]),
        [
          ["Airflow State Store (AS405): fold wait into submit: one deferrable task (deferrable=True, wait_for_termination=True; needs a Triggerer)", "refactor.rewrite", false],
          ["Airflow State Store (AS405): fold wait into submit: one durable task (wait_for_termination=True, durable=True)", "refactor.rewrite", false],
          ["Airflow State Store (AS405): suppress on this line", "quickfix", false],
          ["Airflow State Store (AS405): suppress in this file", "quickfix", false],
          ["Airflow State Store (AS405): show documentation", "quickfix", false],
        ],
      );
      const rewritesOnly = actions(await session.codeActions(dag, { range: as405[0].range, context: { diagnostics: as405, only: ["refactor.rewrite"] } }));
      assert.deepEqual(rewritesOnly.map((a) => a.title), offered.slice(0, 2).map((a) => a.title));
      const chosen = offered.find((a) => a.title === title);
      assert.ok(chosen?.edit, `no action titled ${title}`);
      const afterwards = await session.applyEdit(dag, chosen.edit);
      assert.equal(session.text(dag), expected);
      assert.deepEqual(afterwards.diagnostics.map((d) => d.code), [], `${name}: the rewrite leaves no finding`);
    }
  });

  test("the review answers what the engine writes for the document, with its pin and rule settings, and follows its edits", async () => {
    const dag = folder.uri("dags/nightly.py");
    await session.open(dag, SPLIT);
    const first = await review(dag);
    assert.equal(first.version, 1);
    assert.equal(first.markdown, engineReview("dags/nightly.py", SPLIT));
    assert.match(first.markdown, /^# Airflow state store review: `nightly\.py`\n/);
    // What makes the equality above mean something: the settings and the pin are in the text.
    assert.match(first.markdown, /^### 1\. AS405 `submit-then-poll` \(warning, line 18\)$/m);
    assert.match(first.markdown, /^Airflow version: the project pins Airflow 3\.3\.1 \(\.\.\/requirements\.txt:1\)\.$/m);
    assert.match(first.markdown, /\*\*Rewrite B, without a Triggerer/);

    await session.change(dag, [{ text: CLEAN }]);
    const second = await review(dag);
    assert.equal(second.version, 2);
    assert.equal(second.markdown, engineReview("dags/nightly.py", CLEAN));
  });

  test("a file without findings: the review says so", async () => {
    const dag = folder.uri("dags/clean.py");
    const published = await session.open(dag, CLEAN);
    assert.deepEqual(published.diagnostics, []);
    const { markdown } = await review(dag);
    assert.equal(markdown, engineReview("dags/clean.py", CLEAN));
    assert.match(markdown, /^No findings: every enabled rule passes on this file\.$/m);
    assert.doesNotMatch(markdown, /^## /m, "no category sections");
  });

  test("a document the server does not have open is refused with an error, and the server keeps answering", async () => {
    const closed = folder.uri("dags/never_opened.py");
    await assert.rejects(review(closed), (error: unknown) => error instanceof ResponseError && /is not open/.test(error.message));
    assert.ok((await review(folder.uri("dags/clean.py"))).markdown.length > 0);
  });
});
