/** The Airflow REST emulator for tests and `npm run emulator`. */
export { startEmulator } from "./server";
export type { EmulatorHandle, EmulatorOptions, FaultMatch, FaultMode } from "./server";
export { EmulatorState, DEFAULT_CONFIG, writer } from "./state";
export type { EmulatorConfig, TaskScope, TaskStateRow, AssetStateRow, LastUpdatedBy, RecordedRequest } from "./state";
export { DEMO, seedDemo } from "./seed";
export { DEFAULT_API_TOKENS, DEFAULT_USERS } from "./tokens";
export type { EmulatorUser, Role } from "./tokens";
export { PyFloat, pyJsonDumps, pyJsonLoads } from "./pyjson";
export type { PyJson } from "./pyjson";
