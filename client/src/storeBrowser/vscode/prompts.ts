/**
 * The questions the commands ask: a new entry (key, JSON value, expiry) and a new environment.
 * Each check is the plain one from entryInput.ts / environments.ts, shown while the user types.
 */
import * as vscode from "vscode";
import type { NewEntry } from "../actions";
import { EXPIRY_CHOICES, keyProblem, parseCustomExpiry, parseValueInput, type InputProblem } from "../entryInput";
import { baseUrlProblem, nameProblem, type AuthKind, type EnvironmentConfig } from "../environments";
import { normalizeBaseUrl } from "../../rest/http";

function validation(problem: InputProblem | string | undefined): vscode.InputBoxValidationMessage | undefined {
  if (problem === undefined) return undefined;
  if (typeof problem === "string") return { message: problem, severity: vscode.InputBoxValidationSeverity.Error };
  return {
    message: problem.message,
    severity: problem.severity === "error" ? vscode.InputBoxValidationSeverity.Error : vscode.InputBoxValidationSeverity.Warning,
  };
}

/** Answered by a step when the user pressed its Back button. */
const BACK = Symbol("back");

interface InputStep {
  title: string;
  step?: number;
  totalSteps?: number;
  prompt: string;
  value?: string;
  placeholder?: string;
  /** Why the last attempt failed: shown on this step until the text is changed. */
  failure?: string;
  /** Offers the Back button (default: from the second step on). */
  back?: boolean;
  validate(text: string): vscode.InputBoxValidationMessage | undefined;
}

/** One input box of a multi-step question; undefined when dismissed. */
function askInput(options: InputStep): Promise<string | typeof BACK | undefined> {
  const box = vscode.window.createInputBox();
  box.title = options.title;
  box.step = options.step;
  box.totalSteps = options.totalSteps;
  box.prompt = options.prompt;
  box.value = options.value ?? "";
  box.placeholder = options.placeholder;
  box.ignoreFocusOut = true;
  if (options.back ?? (options.step ?? 1) > 1) box.buttons = [vscode.QuickInputButtons.Back];
  const original = box.value;
  const check = (text: string) => {
    // The failure stays a warning (Enter sends the same text again) until the text changes.
    box.validationMessage =
      options.failure && text === original ? { message: options.failure, severity: vscode.InputBoxValidationSeverity.Warning } : options.validate(text);
  };
  check(box.value);
  return new Promise((resolve) => {
    const done = (answer: string | typeof BACK | undefined) => {
      for (const d of subscriptions) d.dispose();
      box.dispose();
      resolve(answer);
    };
    const subscriptions = [
      box.onDidChangeValue(check),
      box.onDidAccept(() => {
        const problem = options.failure && box.value === original ? undefined : options.validate(box.value);
        if (problem?.severity === vscode.InputBoxValidationSeverity.Error) return;
        done(box.value);
      }),
      box.onDidTriggerButton((button) => button === vscode.QuickInputButtons.Back && done(BACK)),
      box.onDidHide(() => done(undefined)),
    ];
    box.show();
  });
}

interface PickStep<T extends vscode.QuickPickItem> {
  title: string;
  step?: number;
  totalSteps?: number;
  placeholder: string;
  items: T[];
  active?: T;
}

function askPick<T extends vscode.QuickPickItem>(options: PickStep<T>): Promise<T | typeof BACK | undefined> {
  const pick = vscode.window.createQuickPick<T>();
  pick.title = options.title;
  pick.step = options.step;
  pick.totalSteps = options.totalSteps;
  pick.placeholder = options.placeholder;
  pick.items = options.items;
  if (options.active) pick.activeItems = [options.active];
  pick.ignoreFocusOut = true;
  if ((options.step ?? 1) > 1) pick.buttons = [vscode.QuickInputButtons.Back];
  return new Promise((resolve) => {
    const done = (answer: T | typeof BACK | undefined) => {
      for (const d of subscriptions) d.dispose();
      pick.dispose();
      resolve(answer);
    };
    const subscriptions = [
      pick.onDidAccept(() => pick.selectedItems[0] && done(pick.selectedItems[0])),
      pick.onDidTriggerButton((button) => button === vscode.QuickInputButtons.Back && done(BACK)),
      pick.onDidHide(() => done(undefined)),
    ];
    pick.show();
  });
}

export interface NewEntryQuestion {
  /** `orders_daily / manual__… / extract_orders` or `asset "orders/daily"`. */
  where: string;
  /** Task entries have an expiry; asset entries do not. */
  withExpiry: boolean;
  existingKeys: ReadonlySet<string>;
  maxValueLength: number;
  /**
   * Sends the entry. Answers undefined once stored; otherwise why not, and whether asking again
   * can help (`final` ends the questions, e.g. for a user who may not write).
   */
  send(entry: NewEntry): Promise<{ failure: string; final?: boolean } | undefined>;
}

type ExpiryItem = vscode.QuickPickItem & { choice: (typeof EXPIRY_CHOICES)[number]["choice"] };

/**
 * Asks for a new entry step by step (key, value, expiry: 1/3, 2/3, 3/3) and sends it. When the send
 * fails, the value step comes back with everything typed and the reason as its message, so Enter
 * sends the same entry again. Answers whether the entry was stored.
 */
export async function promptNewEntry(question: NewEntryQuestion): Promise<boolean> {
  const total = question.withExpiry ? 3 : 2;
  let key = "";
  let valueText = "";
  let expiry: { item: ExpiryItem; customText?: string } | undefined;
  let failure: string | undefined;
  let step: "key" | "value" | "expiry" | "send" = "key";
  for (;;) {
    if (step === "key") {
      const answer = await askInput({
        title: `Add entry to ${question.where}`,
        step: 1,
        totalSteps: total,
        prompt: "Key",
        value: key,
        placeholder: "e.g. cursor, spark_job_id",
        validate: (text) => validation(keyProblem(text, question.existingKeys)),
      });
      if (answer === undefined || answer === BACK) return false;
      key = answer;
      step = "value";
    } else if (step === "value") {
      const answer = await askInput({
        title: `Add entry "${key}" to ${question.where}`,
        step: 2,
        totalSteps: total,
        prompt: `Value as JSON (not null, no NaN${question.maxValueLength > 0 ? `, at most ${question.maxValueLength} characters` : ""})`,
        value: valueText,
        placeholder: '"text", 42, true, [1, 2] or {"page": 3}',
        failure,
        validate: (text) => {
          const parsed = parseValueInput(text, question.maxValueLength);
          return validation("problem" in parsed ? parsed.problem : undefined);
        },
      });
      if (answer === undefined) return false;
      if (answer === BACK) {
        step = "key";
        continue;
      }
      if (answer !== valueText) failure = undefined;
      valueText = answer;
      step = question.withExpiry ? "expiry" : "send";
    } else if (step === "expiry") {
      const chosen = await askExpiry(`Expiry of "${key}" on ${question.where}`, key, { step: 3, totalSteps: 3 }, expiry);
      if (chosen === undefined) return false;
      if (chosen === BACK) {
        step = "value";
        continue;
      }
      expiry = chosen;
      step = "send";
    } else {
      const parsed = parseValueInput(valueText, question.maxValueLength);
      if ("problem" in parsed) {
        step = "value";
        continue;
      }
      const entry: NewEntry = { key, value: parsed.value };
      if (expiry) entry.expiresAt = expiryValue(expiry);
      const result = await question.send(entry);
      if (!result) return true;
      if (result.final) return false;
      failure = `Not saved: ${result.failure} Press Enter to send it again.`;
      step = "value";
    }
  }
}

function expiryValue(expiry: { item: ExpiryItem; customText?: string }): "default" | null | string {
  if (expiry.item.choice === "default") return "default";
  if (expiry.item.choice === "never") return null;
  const result = parseCustomExpiry(expiry.customText ?? "", new Date());
  // A date that passed while the entry was being sent again: the default rather than nothing.
  return "problem" in result ? "default" : result.expiresAt;
}

/** The expiry step: Default / Never / Custom date (then the date), as in the Airflow UI. */
async function askExpiry(
  title: string,
  key: string,
  position: { step?: number; totalSteps?: number },
  previous?: { item: ExpiryItem; customText?: string },
): Promise<{ item: ExpiryItem; customText?: string } | typeof BACK | undefined> {
  const items: ExpiryItem[] = EXPIRY_CHOICES.map((c) => ({ label: c.label, detail: c.detail, choice: c.choice }));
  for (;;) {
    const item = await askPick({
      title,
      ...position,
      placeholder: `When Airflow removes "${key}" from this task instance's state store`,
      items,
      active: items.find((i) => i.choice === previous?.item.choice),
    });
    if (item === undefined || item === BACK) return item;
    if (item.choice !== "custom") return { item };
    const text = await askInput({
      title,
      ...position,
      back: true,
      prompt: `When "${key}" expires: a local date (2026-06-01), date and time (2026-06-01 18:30), ISO 8601 with a time zone, or a delay (7d, 12h)`,
      value: previous?.customText,
      validate: (t) => {
        const result = parseCustomExpiry(t, new Date());
        return validation("problem" in result ? result.problem : undefined);
      },
    });
    if (text === undefined) return undefined;
    if (text === BACK) continue;
    return { item, customText: text };
  }
}

/** Default / Never / Custom date for an existing entry (Set Expiry…); undefined when cancelled. */
export async function promptExpiry(key: string, where: string): Promise<"default" | null | string | undefined> {
  const chosen = await askExpiry(`Set expiry of "${key}" on ${where}`, key, {});
  return chosen === undefined || chosen === BACK ? undefined : expiryValue(chosen);
}

/** Asks for a new environment's name, URL, authentication and TLS choice. */
export async function promptEnvironment(existing: readonly EnvironmentConfig[]): Promise<EnvironmentConfig | undefined> {
  const name = await vscode.window.showInputBox({
    title: "Add Airflow environment (1/4)",
    prompt: "Name",
    placeHolder: "e.g. production, staging, local",
    ignoreFocusOut: true,
    validateInput: (text) => validation(nameProblem(text, existing)),
  });
  if (name === undefined) return undefined;
  const baseUrl = await vscode.window.showInputBox({
    title: "Add Airflow environment (2/4)",
    prompt: "Airflow URL: the API server's address, without /api/v2",
    placeHolder: "e.g. https://airflow.example.com or http://localhost:8080",
    ignoreFocusOut: true,
    validateInput: (text) => validation(baseUrlProblem(text)),
  });
  if (baseUrl === undefined) return undefined;
  const auth = await vscode.window.showQuickPick(
    [
      { label: "Username and password", detail: "exchanged for a token at /auth/token", auth: "password" as AuthKind },
      { label: "API token", detail: "a long-lived bearer token (managed deployments)", auth: "token" as AuthKind },
      { label: "None", detail: "the API accepts requests without credentials", auth: "none" as AuthKind },
    ],
    { title: "Add Airflow environment (3/4): authentication", ignoreFocusOut: true },
  );
  if (!auth) return undefined;
  let username: string | undefined;
  if (auth.auth === "password") {
    username = await vscode.window.showInputBox({
      title: "Add Airflow environment (4/4)",
      prompt: "Username (the password is asked when signing in and kept in VS Code's secret storage)",
      ignoreFocusOut: true,
      validateInput: (text) => (text.trim() ? undefined : "Type the Airflow username."),
    });
    if (username === undefined) return undefined;
  }
  const url = normalizeBaseUrl(baseUrl);
  let verifyTls = true;
  if (url.startsWith("https:")) {
    const tls = await vscode.window.showQuickPick(
      [
        { label: "Verify the TLS certificate", detail: "recommended", verify: true },
        { label: "Accept any certificate", detail: "only for a test server with a self-signed certificate", verify: false },
      ],
      { title: "TLS", ignoreFocusOut: true },
    );
    if (!tls) return undefined;
    verifyTls = tls.verify;
  }
  return { name: name.trim(), baseUrl: url, auth: auth.auth, username: username?.trim(), verifyTls };
}

/** The password or token of an environment; undefined when cancelled. */
export function promptSecret(env: EnvironmentConfig, failure?: string): Thenable<string | undefined> {
  const what = env.auth === "token" ? "API token" : `password of ${env.username}`;
  return vscode.window.showInputBox({
    title: `Sign in to ${env.name} (${env.baseUrl})`,
    prompt: failure ? `${failure} Type the ${what} again.` : `The ${what}; kept in VS Code's secret storage.`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (text) => (text ? undefined : `Type the ${what}.`),
  });
}
