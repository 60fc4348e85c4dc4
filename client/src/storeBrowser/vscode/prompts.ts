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

export interface EntryDraft {
  key?: string;
  valueText?: string;
  /** Why the previous attempt failed, shown above the value. */
  failure?: string;
}

/**
 * Asks for a new entry. `withExpiry` for task entries. Returns undefined when cancelled; the draft
 * keeps what was typed so a failed write can ask again without losing it.
 */
export async function promptNewEntry(
  where: string,
  withExpiry: boolean,
  existingKeys: ReadonlySet<string>,
  maxValueLength: number,
  draft: EntryDraft,
): Promise<NewEntry | undefined> {
  const key = await vscode.window.showInputBox({
    title: `Add entry to ${where}`,
    prompt: "Key",
    value: draft.key,
    placeHolder: "e.g. cursor, spark_job_id",
    ignoreFocusOut: true,
    validateInput: (text) => validation(keyProblem(text, existingKeys)),
  });
  if (key === undefined) return undefined;
  draft.key = key;
  const valueText = await vscode.window.showInputBox({
    title: `Add entry "${key}" to ${where}`,
    prompt: draft.failure
      ? `Not saved: ${draft.failure}`
      : `Value as JSON (not null, no NaN${maxValueLength > 0 ? `, at most ${maxValueLength} characters` : ""})`,
    value: draft.valueText,
    placeHolder: '"text", 42, true, [1, 2] or {"page": 3}',
    ignoreFocusOut: true,
    validateInput: (text) => {
      const parsed = parseValueInput(text, maxValueLength);
      return validation("problem" in parsed ? parsed.problem : undefined);
    },
  });
  if (valueText === undefined) return undefined;
  draft.valueText = valueText;
  const parsed = parseValueInput(valueText, maxValueLength);
  if ("problem" in parsed) return undefined;
  if (!withExpiry) return { key, value: parsed.value };
  const expiresAt = await promptExpiry();
  return expiresAt === undefined ? undefined : { key, value: parsed.value, expiresAt };
}

/** Default / Never / Custom date, as in the Airflow UI. Undefined when cancelled. */
export async function promptExpiry(): Promise<"default" | null | string | undefined> {
  const picked = await vscode.window.showQuickPick(
    EXPIRY_CHOICES.map((c) => ({ label: c.label, detail: c.detail, choice: c.choice })),
    { title: "Expiry", ignoreFocusOut: true },
  );
  if (!picked) return undefined;
  if (picked.choice === "default") return "default";
  if (picked.choice === "never") return null;
  const text = await vscode.window.showInputBox({
    title: "Expires at",
    prompt: "A local date (2026-06-01), date and time (2026-06-01 18:30), ISO 8601 with a time zone, or a delay (7d, 12h)",
    ignoreFocusOut: true,
    validateInput: (t) => {
      const result = parseCustomExpiry(t, new Date());
      return validation("problem" in result ? result.problem : undefined);
    },
  });
  if (text === undefined) return undefined;
  const result = parseCustomExpiry(text, new Date());
  return "problem" in result ? undefined : result.expiresAt;
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
    prompt: "Airflow URL (the API server; `npm run emulator` serves a demo on http://127.0.0.1:28080)",
    value: "http://127.0.0.1:28080",
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
