/**
 * What the browser has learnt about each environment from its requests: whether Airflow could be
 * reached the last time it was asked (and why not), and whether the signed-in user may only read
 * (Airflow refused a write, or the session token's role says so). The tree, the status bar and the
 * code lens read it; the requests they make report to it.
 */
import { environmentIdentity, type EnvironmentConfig } from "./environments";
import type { Failure } from "./failures";

export interface HealthState {
  /** Why the last request could not reach Airflow; undefined once one did. */
  offline?: string;
  /** The user may only read: why (Airflow's answer to a refused write, or the token's role). */
  readOnly?: string;
  /** Set when the mark comes from the session token's role (e.g. `viewer`) rather than a refused write. */
  readOnlyRole?: string;
}

type HealthListener = (envName: string) => void;

export class EnvironmentHealth {
  /** By environment identity, so a changed URL or user starts afresh. */
  private readonly states = new Map<string, HealthState>();
  private readonly listeners = new Set<HealthListener>();

  onDidChange(listener: HealthListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  of(env: EnvironmentConfig | undefined): HealthState {
    return (env && this.states.get(environmentIdentity(env))) ?? {};
  }

  /** A request reached Airflow and was answered. */
  reached(env: EnvironmentConfig): void {
    this.change(env, (state) => (state.offline === undefined ? undefined : { ...state, offline: undefined }));
  }

  /** A request failed: an outage marks the environment offline, a refused write read-only. */
  failed(env: EnvironmentConfig, failure: Failure): void {
    if (failure.kind === "offline") this.change(env, (state) => (state.offline === failure.reason ? undefined : { ...state, offline: failure.reason }));
    else if (failure.kind === "read-only") {
      this.change(env, (state) => ({ ...state, offline: undefined, readOnly: failure.reason }));
    } else if (failure.kind !== "cancelled") this.reached(env);
  }

  /** The session token's role may read but not change state stores: marked before any write is tried. */
  readOnlyRole(env: EnvironmentConfig, role: string): void {
    this.change(env, (state) => (state.readOnlyRole === role ? undefined : { ...state, readOnly: roleReason(role), readOnlyRole: role }));
  }

  /**
   * A new sign-in (perhaps as another user): what was learnt about the previous one's rights is
   * forgotten; `readOnlyRole` is the new token's role when it may only read.
   */
  signedIn(env: EnvironmentConfig, readOnlyRole?: string): void {
    this.change(env, (state) => ({ ...state, readOnly: readOnlyRole === undefined ? undefined : roleReason(readOnlyRole), readOnlyRole }));
  }

  private change(env: EnvironmentConfig, next: (state: HealthState) => HealthState | undefined): void {
    const identity = environmentIdentity(env);
    const updated = next(this.states.get(identity) ?? {});
    if (!updated) return;
    const old = this.states.get(identity) ?? {};
    if (old.offline === updated.offline && old.readOnly === updated.readOnly) return;
    this.states.set(identity, updated);
    for (const listener of this.listeners) listener(env.name);
  }
}

function roleReason(role: string): string {
  return `the role "${role}" may only read`;
}
