/**
 * REST client for Airflow 3's `/api/v2` state store endpoints. Plain Node (no `vscode` import):
 * usable from the extension, the CLI and tests.
 */
export { AirflowClient } from "./client";
export type { ClearTaskStateOptions, PutTaskStateOptions } from "./stateStore";
export {
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
  UnprocessableEntityError,
  ValueValidationError,
  formatDetail,
} from "./errors";
export type { AuthFailure, ValidationIssue, ValueProblem } from "./errors";
export {
  DEFAULT_MAX_VALUE_LENGTH,
  MAX_KEY_LENGTH,
  checkKey,
  checkStateValue,
  normalizeExpiresAt,
  parseStateValue,
  pythonJsonLength,
} from "./validate";
export type { ValueCheckOptions } from "./validate";
export { paginate } from "./paging";
export { supportsStateStore } from "./browse";
export { sessionOf, tokenClaims } from "./session";
export type { SessionInfo } from "./session";
export { DEFAULT_MAX_CONCURRENCY, DEFAULT_TIMEOUT_MS } from "./http";
export { Semaphore } from "./semaphore";
export type * from "./types";
