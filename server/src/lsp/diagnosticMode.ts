/**
 * `airflowStateStore.diagnosticMode`: "openFiles" (the default) checks the documents open in the
 * editor; "workspace" also checks every other Python file of the workspace, from disk, in the
 * background. One value for the window: it is read without a scope.
 */
import { SECTION } from "./settings";

export type DiagnosticMode = "openFiles" | "workspace";

export const DEFAULT_DIAGNOSTIC_MODE: DiagnosticMode = "openFiles";

/** The mode in the `airflowStateStore` section's raw value; anything else is the default, and is reported. */
export function parseDiagnosticMode(section: unknown, warn: (message: string) => void): DiagnosticMode {
  const value = typeof section === "object" && section !== null ? (section as { diagnosticMode?: unknown }).diagnosticMode : undefined;
  if (value === undefined || value === "openFiles" || value === "workspace") return (value as DiagnosticMode | undefined) ?? DEFAULT_DIAGNOSTIC_MODE;
  warn(`Ignoring ${SECTION}.diagnosticMode ${JSON.stringify(value)}: expected "openFiles" or "workspace"; checking open files only.`);
  return DEFAULT_DIAGNOSTIC_MODE;
}
