/** `AirflowClient`: one object per Airflow environment, with a typed method per endpoint. */
import { createAuthenticator, PasswordAuthenticator, type Authenticator } from "./auth";
import * as browse from "./browse";
import { ApiCaller } from "./caller";
import { HttpTransport } from "./http";
import { sessionOf, type SessionInfo } from "./session";
import * as store from "./stateStore";
import type {
  AirflowClientOptions,
  Asset,
  AssetStateEntry,
  Dag,
  DagRun,
  ListAssetsParams,
  ListDagRunsParams,
  ListDagsParams,
  ListTaskInstancesParams,
  Page,
  PageParams,
  RequestOptions,
  TaskInstance,
  TaskInstanceRef,
  TaskStateEntry,
  VersionInfo,
} from "./types";
import { ValueValidationError } from "./errors";
import { DEFAULT_MAX_VALUE_LENGTH } from "./validate";

export class AirflowClient {
  readonly baseUrl: string;
  /** Longest JSON text of a value accepted before sending (0 = no limit). */
  readonly maxValueLength: number;
  private readonly transport: HttpTransport;
  private readonly authenticator: Authenticator;
  private readonly api: ApiCaller;

  constructor(options: AirflowClientOptions) {
    this.transport = new HttpTransport(options);
    this.baseUrl = this.transport.baseUrl;
    const maxValueLength = options.maxValueLength ?? DEFAULT_MAX_VALUE_LENGTH;
    if (!Number.isInteger(maxValueLength) || maxValueLength < 0) {
      throw new ValueValidationError("parameter", `maxValueLength must be an integer ≥ 0, got ${options.maxValueLength}.`);
    }
    this.maxValueLength = maxValueLength;
    const onSession = options.onSession;
    this.authenticator = createAuthenticator(options.auth, this.transport, onSession && ((token) => onSession(sessionOf(token))));
    this.api = new ApiCaller(this.transport, this.authenticator, maxValueLength);
  }

  /** `"password"`, `"token"` or `"none"`. */
  get authKind(): Authenticator["kind"] {
    return this.authenticator.kind;
  }

  /** Requests waiting for a concurrency slot / on the wire right now. */
  get queuedRequests(): number {
    return this.transport.queued;
  }
  get inFlightRequests(): number {
    return this.transport.inFlight;
  }

  /**
   * Signs in now (password auth) so bad credentials surface as an AuthError immediately;
   * otherwise the first call signs in. Does nothing for token / no auth.
   */
  async signIn(options: RequestOptions = {}): Promise<void> {
    if (this.authenticator instanceof PasswordAuthenticator) {
      this.authenticator.signOut();
      await this.authenticator.signIn(options);
    }
  }

  /**
   * What the bearer token sent now says about its user (see session.ts): known for an API token at
   * once, for a password once signed in; undefined without a token or for one that is not a JWT.
   */
  session(): SessionInfo | undefined {
    const token = this.authenticator.currentToken();
    return token === undefined ? undefined : sessionOf(token);
  }

  /** Forgets the session token; the next call signs in again. */
  signOut(): void {
    this.authenticator.signOut();
  }

  // ---- browsing ----

  getVersion(options?: RequestOptions): Promise<VersionInfo> {
    return browse.getVersion(this.api, options);
  }
  listDags(params?: ListDagsParams & RequestOptions): Promise<Page<Dag>> {
    return browse.listDags(this.api, params);
  }
  listDagRuns(dagId: string, params?: ListDagRunsParams & RequestOptions): Promise<Page<DagRun>> {
    return browse.listDagRuns(this.api, dagId, params);
  }
  listTaskInstances(dagId: string, runId: string, params?: ListTaskInstancesParams & RequestOptions): Promise<Page<TaskInstance>> {
    return browse.listTaskInstances(this.api, dagId, runId, params);
  }
  listAssets(params?: ListAssetsParams & RequestOptions): Promise<Page<Asset>> {
    return browse.listAssets(this.api, params);
  }

  // ---- task state store ----

  listTaskStateEntries(ti: TaskInstanceRef, params?: PageParams & RequestOptions): Promise<Page<TaskStateEntry>> {
    return store.listTaskStateEntries(this.api, ti, params);
  }
  getTaskStateEntry(ti: TaskInstanceRef, key: string, options?: RequestOptions): Promise<TaskStateEntry> {
    return store.getTaskStateEntry(this.api, ti, key, options);
  }
  putTaskStateEntry(ti: TaskInstanceRef, key: string, value: unknown, options?: store.PutTaskStateOptions): Promise<void> {
    return store.putTaskStateEntry(this.api, ti, key, value, options);
  }
  patchTaskStateEntry(ti: TaskInstanceRef, key: string, value: unknown, options?: RequestOptions): Promise<void> {
    return store.patchTaskStateEntry(this.api, ti, key, value, options);
  }
  deleteTaskStateEntry(ti: TaskInstanceRef, key: string, options?: RequestOptions): Promise<void> {
    return store.deleteTaskStateEntry(this.api, ti, key, options);
  }
  clearTaskStateStore(ti: TaskInstanceRef, options?: store.ClearTaskStateOptions): Promise<void> {
    return store.clearTaskStateStore(this.api, ti, options);
  }

  // ---- asset state store ----

  listAssetStateEntries(assetId: number, params?: PageParams & RequestOptions): Promise<Page<AssetStateEntry>> {
    return store.listAssetStateEntries(this.api, assetId, params);
  }
  getAssetStateEntry(assetId: number, key: string, options?: RequestOptions): Promise<AssetStateEntry> {
    return store.getAssetStateEntry(this.api, assetId, key, options);
  }
  putAssetStateEntry(assetId: number, key: string, value: unknown, options?: RequestOptions): Promise<void> {
    return store.putAssetStateEntry(this.api, assetId, key, value, options);
  }
  deleteAssetStateEntry(assetId: number, key: string, options?: RequestOptions): Promise<void> {
    return store.deleteAssetStateEntry(this.api, assetId, key, options);
  }
  clearAssetStateStore(assetId: number, options?: RequestOptions): Promise<void> {
    return store.clearAssetStateStore(this.api, assetId, options);
  }
}
