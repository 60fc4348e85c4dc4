/**
 * What a failed request means for the user: Airflow cannot be reached (the environment is offline),
 * the user may read but not write (read-only), the sign-in is no longer accepted, or Airflow refused
 * this one request. Read from the errors the REST client throws; nothing here sends anything.
 */
import {
  AirflowError,
  AirflowHttpError,
  AuthError,
  CancelledError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  TimeoutError,
  ValueValidationError,
} from "../rest/errors";
import type { EnvironmentConfig } from "./environments";

export type FailureKind = "offline" | "read-only" | "sign-in" | "not-found" | "invalid" | "refused" | "cancelled" | "other";

export interface Failure {
  kind: FailureKind;
  /** Why, in one sentence without a trailing period: Airflow's reason or the connection's. */
  reason: string;
}

/** Certificate errors are a setting to fix, not an outage. */
const TLS_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

export function isTlsFailure(error: unknown): error is NetworkError {
  return error instanceof NetworkError && error.code !== undefined && TLS_CODES.has(error.code);
}

/**
 * `write` says whether the request changed something: a 403 on a write means the user may only
 * read, a 403 on a read only that this one list is not theirs to see. A 403 about the token itself
 * ("Invalid JWT token", after the server's secret changed) asks for a new sign-in either way.
 */
export function classifyFailure(error: unknown, write: boolean): Failure {
  const reason = reasonOf(error);
  if (isTlsFailure(error)) return { kind: "other", reason };
  if (error instanceof NetworkError || error instanceof TimeoutError) return { kind: "offline", reason };
  if (error instanceof AuthError) return { kind: "sign-in", reason };
  if (error instanceof ForbiddenError) {
    if (/\b(jwt|token)\b/i.test(error.detail)) return { kind: "sign-in", reason };
    return { kind: write ? "read-only" : "refused", reason };
  }
  if (error instanceof NotFoundError) return { kind: "not-found", reason };
  if (error instanceof ValueValidationError) return { kind: "invalid", reason };
  if (error instanceof AirflowHttpError && (error.status === 400 || error.status === 422)) return { kind: "invalid", reason };
  if (error instanceof CancelledError) return { kind: "cancelled", reason };
  if (error instanceof AirflowHttpError) return { kind: "refused", reason };
  return { kind: "other", reason };
}

function reasonOf(error: unknown): string {
  if (error instanceof AirflowHttpError && !(error instanceof AuthError)) return `Airflow answered ${error.message}`;
  const text = error instanceof AirflowError || error instanceof Error ? error.message : String(error);
  return text.replace(/\.\s*$/, "");
}

/** Who is signed in, as the read-only message names them. */
export function userOf(env: Pick<EnvironmentConfig, "auth" | "username">): string {
  if (env.auth === "password" && env.username) return env.username;
  return env.auth === "token" ? "This API token" : "This connection";
}

/** `viewer can read but not change state stores on production.` */
export function readOnlyMessage(env: Pick<EnvironmentConfig, "name" | "auth" | "username">): string {
  return `${userOf(env)} can read but not change state stores on ${env.name}.`;
}

export interface FailureNotice {
  /** What failed, where, and why. */
  message: string;
  failure: Failure;
  /** Whether sending the same request again can succeed (an outage, a server error). */
  retryable: boolean;
}

/**
 * The notification for a failed action. `action` names what was done and to what, e.g.
 * `delete "cursor" from orders_daily / manual__… / extract_orders`.
 */
export function failureNotice(action: string, env: Pick<EnvironmentConfig, "name" | "auth" | "username">, error: unknown, write: boolean): FailureNotice {
  const failure = classifyFailure(error, write);
  if (failure.kind === "read-only") {
    return { message: `Could not ${action}: ${readOnlyMessage(env)} (${failure.reason})`, failure, retryable: false };
  }
  const hint =
    failure.kind === "offline"
      ? " Check that Airflow's API server is running and the environment's URL is right."
      : failure.kind === "sign-in"
        ? ` Sign in to ${env.name} again.`
        : "";
  return {
    message: `Could not ${action} on ${env.name}: ${failure.reason}.${hint}`,
    failure,
    retryable: canRetry(failure),
  };
}

/** Whether sending the same request again can succeed: an outage or a server error, not a refusal of its content. */
export function canRetry(failure: Failure): boolean {
  return failure.kind === "offline" || failure.kind === "refused" || failure.kind === "other";
}
