/** Shared helpers of the REST client / emulator tests (not a test file itself). */
import type { TestContext } from "node:test";
import { AirflowClient } from "../../client/src/rest";
import { stringifyLossless } from "../../client/src/rest/json";
import type { AirflowClientOptions, TaskInstanceRef } from "../../client/src/rest";
import { DEMO, startEmulator, type EmulatorHandle, type EmulatorOptions } from "../emulator";

export { DEMO };

/** Starts an emulator that is closed when the test ends. */
export async function emulatorFor(t: TestContext, options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const emu = await startEmulator(options);
  t.after(() => emu.close());
  return emu;
}

export function adminClient(emu: EmulatorHandle, options: Partial<AirflowClientOptions> = {}): AirflowClient {
  return new AirflowClient({ baseUrl: emu.url, auth: { kind: "password", username: "admin", password: "admin" }, timeoutMs: 5000, ...options });
}

export function viewerClient(emu: EmulatorHandle, options: Partial<AirflowClientOptions> = {}): AirflowClient {
  return new AirflowClient({ baseUrl: emu.url, auth: { kind: "password", username: "viewer", password: "viewer" }, timeoutMs: 5000, ...options });
}

/** A value read through the client (numbers as LosslessNumbers) with plain numbers, for comparing with literals. */
export function plain(value: unknown): unknown {
  return JSON.parse(stringifyLossless(value));
}

/** Requests the emulator received with this method whose decoded path matches. */
export function received(emu: EmulatorHandle, method: string, path: string | RegExp): number {
  return emu.requests.filter((r) => r.method === method && (typeof path === "string" ? r.path.includes(path) : path.test(r.path))).length;
}

export const LLM_TI: TaskInstanceRef = { dagId: DEMO.llm.dagId, runId: DEMO.llm.run, taskId: DEMO.llm.taskId };
export const SPARK_TI: TaskInstanceRef = { dagId: DEMO.spark.dagId, runId: DEMO.spark.run, taskId: DEMO.spark.taskId };
export const mappedTi = (mapIndex: number): TaskInstanceRef => ({
  dagId: DEMO.partitions.dagId,
  runId: DEMO.partitions.run,
  taskId: DEMO.partitions.taskId,
  mapIndex,
});

/** Raw HTTP against the emulator, for asserting the server's own answers. */
export async function raw(
  emu: EmulatorHandle,
  method: string,
  path: string,
  options: { token?: string | null; body?: string; json?: unknown; contentType?: string } = {},
): Promise<{ status: number; body: unknown; text: string }> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? "emulator-admin-token" : options.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  let body = options.body;
  if (options.json !== undefined) body = JSON.stringify(options.json);
  if (body !== undefined) headers["Content-Type"] = options.contentType ?? "application/json";
  const res = await fetch(emu.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** Encoded base path of a task instance's state store. */
export function taskStorePath(dagId: string, runId: string, taskId: string): string {
  return `/api/v2/dags/${encodeURIComponent(dagId)}/dagRuns/${encodeURIComponent(runId)}/taskInstances/${encodeURIComponent(taskId)}/state-store`;
}

export const LLM_PATH = taskStorePath(DEMO.llm.dagId, DEMO.llm.run, DEMO.llm.taskId);
export const MAPPED_PATH = taskStorePath(DEMO.partitions.dagId, DEMO.partitions.run, DEMO.partitions.taskId);
