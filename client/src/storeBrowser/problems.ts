/**
 * What the tree shows instead of children when something is wrong: the reason in one line, the
 * details in the tooltip, and the one action that helps (sign in, open settings, retry).
 */
import {
  AirflowError,
  AirflowHttpError,
  AuthError,
  CancelledError,
  ForbiddenError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  SignInError,
  TimeoutError,
} from "../rest/errors";
import { COMMANDS } from "./commandIds";
import { isTlsFailure } from "./failures";
import type { Connection } from "./connections";
import type { TreeAction } from "./nodes";

export interface Problem {
  severity: "info" | "warning" | "error";
  text: string;
  detail?: string;
  action?: TreeAction;
}

/** The problem an error thrown while listing `what` (e.g. "the DAGs") stands for. */
export function problemOf(error: unknown, what: string, envName: string, retry: TreeAction): Problem {
  const signIn: TreeAction = { command: COMMANDS.signIn, title: "Sign in…", args: [envName] };
  const settings: TreeAction = { command: COMMANDS.openSettings, title: "Open settings" };
  if (error instanceof AuthError) {
    if (error.reason === "not-authenticated") {
      return { severity: "error", text: "Airflow requires credentials: set auth to \"password\" or \"token\"", detail: error.message, action: settings };
    }
    return { severity: "error", text: `Sign in to ${envName} again: Airflow rejected the credentials`, detail: error.message, action: signIn };
  }
  if (error instanceof ForbiddenError) {
    return { severity: "error", text: `No permission to read ${what}`, detail: `${error.message}\nAsk an Airflow admin for access, or sign in as another user.`, action: signIn };
  }
  if (error instanceof NotFoundError) {
    return { severity: "warning", text: `Not found on the server: ${error.detail || "it may have been deleted"}`, detail: error.message, action: retry };
  }
  if (isTlsFailure(error)) {
    return {
      severity: "error",
      text: `The server's TLS certificate is not trusted (${error.code})`,
      detail: `${error.message}\nFor a test server with a self-signed certificate, set "verifyTls": false on this environment.`,
      action: settings,
    };
  }
  if (error instanceof NetworkError) {
    return { severity: "error", text: error.message, detail: "Check the environment's baseUrl and that Airflow's API server is running.", action: retry };
  }
  if (error instanceof TimeoutError) {
    return { severity: "error", text: `Airflow did not answer in time while listing ${what}`, detail: error.message, action: retry };
  }
  if (error instanceof InvalidResponseError) {
    return { severity: "error", text: `Airflow's answer for ${what} was not understood`, detail: `${error.message}\n${error.bodySnippet}`, action: retry };
  }
  if (error instanceof SignInError) return { severity: "error", text: error.message, detail: `${error.method} ${error.path}`, action: retry };
  if (error instanceof AirflowHttpError) {
    return { severity: "error", text: `Airflow answered ${error.message}`, detail: `${error.method} ${error.path}`, action: retry };
  }
  if (error instanceof CancelledError) return { severity: "info", text: "Cancelled", action: retry };
  if (error instanceof AirflowError) return { severity: "error", text: error.message, action: retry };
  return { severity: "error", text: `Could not list ${what}: ${error instanceof Error ? error.message : String(error)}`, action: retry };
}

/** Why a connection is not ready, as the one item the tree shows. */
export function connectionProblem(connection: Exclude<Connection, { kind: "ready" }>): Problem {
  switch (connection.kind) {
    case "untrusted":
      return {
        severity: "warning",
        text: "Restricted Mode: Airflow is not contacted in an untrusted workspace",
        detail:
          "A workspace's settings can point an environment at any server, so no request (and no password or token) is sent until you trust this workspace.",
        action: { command: COMMANDS.manageTrust, title: "Manage Workspace Trust" },
      };
    case "no-environment":
      return {
        severity: "info",
        text: connection.problems.length ? `No usable Airflow environment: ${connection.problems[0]}` : "No Airflow environment configured",
        detail: [...connection.problems, "Add an environment, or correct the airflowStateStore.environments setting."].join("\n"),
        action: { command: COMMANDS.addEnvironment, title: "Add environment…" },
      };
    case "signed-out":
      if (connection.questions?.length) {
        return {
          severity: "warning",
          text: `Confirm before credentials are sent to ${connection.env.name}`,
          detail: connection.questions.map((q) => `${q.message}\n${q.detail}`).join("\n"),
          action: { command: COMMANDS.signIn, title: "Confirm…", args: [connection.env.name] },
        };
      }
      return {
        severity: "info",
        text: connection.env.auth === "token" ? `Set the API token for ${connection.env.name}` : `Sign in to ${connection.env.name} as ${connection.env.username}`,
        detail: [connection.reason, `${connection.env.baseUrl}: the ${connection.env.auth === "token" ? "token" : "password"} is kept in VS Code's secret storage.`]
          .filter(Boolean)
          .join("\n"),
        action: { command: COMMANDS.signIn, title: "Sign in…", args: [connection.env.name] },
      };
  }
}
