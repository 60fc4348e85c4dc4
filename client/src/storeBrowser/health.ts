/**
 * What the browser has learnt about each environment from its requests: whether Airflow could be
 * reached the last time it was asked (and why not), and whether the signed-in user was refused a
 * write. The tree, the status bar and the code lens read it; the requests they make report to it.
 */
import { environmentIdentity, type EnvironmentConfig } from "./environments";
import type { Failure } from "./failures";

export interface HealthState {
  /** Why the last request could not reach Airflow; undefined once one did. */
  offline?: string;
  /** Airflow refused a write from this user (403): why. */
  readOnly?: string;
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

  /** Forgets the read-only mark, e.g. after signing in again (perhaps as another user). */
  signedIn(env: EnvironmentConfig): void {
    this.change(env, (state) => (state.readOnly === undefined ? undefined : { ...state, readOnly: undefined }));
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
