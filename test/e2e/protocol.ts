/**
 * What the harness (a Node process outside the editor) and the suite (inside VS Code's extension
 * host) agree on. They share no memory, only environment variables and files: the extension host
 * inherits the environment of the editor the harness starts.
 */

/** publisher.name from package.json: how VS Code and the workbench's messages name the extension. */
export const EXTENSION_ID = "airflow-state-store.airflow-state-store";

/** Environment variable naming the JSON file the suite writes its results to. */
export const RESULTS_FILE_ENV = "AIRFLOW_STATE_STORE_E2E_RESULTS";
/**
 * Environment variable naming the folder where the suite asks the harness for what only a browser
 * on the workbench can do: screenshots, typing into a prompt, pressing a dialog's button, reading
 * what a view shows. Set only by the code-server harness.
 */
export const HARNESS_DIR_ENV = "AIRFLOW_STATE_STORE_E2E_HARNESS";
/**
 * Environment variable naming the extension host's log folder (one subfolder per extension), set by
 * the driver extension from its own `logUri`; there the suite reads the extension's log file.
 */
export const EXTENSION_LOGS_ENV = "AIRFLOW_STATE_STORE_E2E_LOGS";
/** Environment variable with the base URL of the Airflow emulator the harness started. */
export const EMULATOR_URL_ENV = "AIRFLOW_STATE_STORE_E2E_EMULATOR";

/** Suites named `*.browser.e2e.js` need the harness's browser; without it they are not loaded. */
export const BROWSER_SUITE_SUFFIX = ".browser.e2e.js";
export const SUITE_SUFFIX = ".e2e.js";

export interface TestOutcome {
  /** Suite and test title, as mocha's fullTitle(). */
  title: string;
  state: "passed" | "failed";
  durationMs?: number;
  /** The error message and stack of a failure. */
  error?: string;
}

export interface ResultsFile {
  /** Tests mocha found before running; every one of them must appear in `tests`. */
  total: number;
  tests: TestOutcome[];
  /** Browser suites not loaded because no harness browser was there (npm run test:vscode). */
  suitesNeedingBrowser?: string[];
  /** Set when the runner itself failed (mocha did not load, a spec file threw on load). */
  runnerError?: string;
}

/** A CSS selector of the workbench, as playwright takes it. */
export type Selector = string;

export type HarnessRequest =
  /** Saves a picture of the whole workbench as `<name>.png` in the artifacts. */
  | { action: "screenshot"; name: string }
  /**
   * Waits for the quick input (input box or quick pick) to show `expect`, then types `text` over
   * its input (or keeps what is there when `text` is undefined) and presses Enter. Answers the
   * widget's text and the input's value as they were before typing.
   */
  | { action: "input"; expect: string; text?: string }
  /** Waits for a modal dialog and clicks the button labelled `button`; answers the dialog's text. */
  | { action: "dialog"; button: string }
  /** Clicks the first element matching `selector` that contains `hasText`. */
  | { action: "click"; selector: Selector; hasText: string }
  /**
   * Answers the text of the first element matching `selector` once it contains `contains` (and no
   * longer contains `lacks`); fails with the text seen last when that does not happen in time.
   */
  | { action: "text"; selector: Selector; contains?: string; lacks?: string }
  /**
   * Answers what a webview renders (the Markdown preview's document is in a frame of a frame): the
   * text of the first element matching `root` in any frame once it contains `contains`, and every
   * element inside it.
   */
  | { action: "webview"; root: Selector; contains: string }
  /** Makes the emulator answer the next matching requests with a fault (see test/emulator). */
  | { action: "fault"; method: string; path: string; status: number; detail: string; times: number };

export interface HarnessAnswer {
  ok: boolean;
  /** What the action read: a widget's, dialog's or element's text. */
  text?: string;
  /** For `input`: the input's value before typing. */
  value?: string;
  /** For `webview`: the elements inside the root, in document order. */
  elements?: RenderedElement[];
  error?: string;
}

/** An element as a webview's document holds it. */
export interface RenderedElement {
  /** The lower-case tag name. */
  tag: string;
  attributes: Record<string, string>;
}

/** The suite writes `<id>.request.json`; the harness answers with `<id>.answer.json`. */
export function requestFile(id: string): string {
  return `${id}.request.json`;
}

export function answerFile(id: string): string {
  return `${id}.answer.json`;
}
