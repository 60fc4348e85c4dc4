/** Folders that hold no one's DAG code: version control, dependencies, virtual environments, caches. */

const SKIPPED_FOLDERS = new Set([".git", "node_modules", ".venv", "venv", "__pycache__"]);

/** Whether a folder of this name is left out of searches for Python files (hidden folders included). */
export function isSkippedFolder(name: string): boolean {
  return SKIPPED_FOLDERS.has(name) || name.startsWith(".");
}
