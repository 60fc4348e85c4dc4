/**
 * Which Airflow version a DAG file's project pins. From the file's folder up to the repository root
 * (the first folder holding `.git`) or the file system's root, the nearest folder whose project files
 * name Airflow decides: its first capped pin, read in this order, is the answer:
 * 1. `Dockerfile` (the image that runs),
 * 2. `constraints*.txt`,
 * 3. `requirements*.txt` (`requirements.txt` first; `-r` / `-c` includes are followed),
 * 4. `pyproject.toml`, 5. `setup.cfg`, 6. `setup.py`.
 * A folder that names Airflow without capping its version (`apache-airflow>=3.0`) ends the search
 * with no answer: a project further up may be another project, and guessing from it would be worse
 * than saying nothing.
 *
 * Results are cached per folder; `invalidate(path)` drops what a changed file could affect.
 */
import * as path from "node:path";
import { dockerfileMentions } from "./dockerfile";
import { ProjectFiles } from "./files";
import { AirflowMention, AirflowPin } from "./pin";
import { pyprojectMentions } from "./pyproject";
import { ReadContext, requirementsMentions } from "./requirementsFile";
import { setupCfgMentions } from "./setupCfg";
import { setupPyMentions } from "./setupPy";

/** What one folder says. */
interface FolderScan {
  /** Whether some file of the folder names Airflow. */
  namesAirflow: boolean;
  pin?: AirflowPin;
  /** The folder holds `.git`: the search stops here. */
  isRoot: boolean;
  /** Every file read for the scan, includes outside the folder too. */
  read: ReadonlySet<string>;
}

const REQUIREMENTS = /^requirements.*\.txt$/i;
const CONSTRAINTS = /^constraints.*\.txt$/i;
const SINGLE_FILES = ["pyproject.toml", "setup.cfg", "setup.py"];

/** Whether a file of this name can hold a pin (or end the search, for `.git`), whatever folder it is in. */
export function isPinFileName(name: string): boolean {
  return name === "Dockerfile" || name === ".git" || REQUIREMENTS.test(name) || CONSTRAINTS.test(name) || SINGLE_FILES.includes(name);
}

export class AirflowVersionResolver {
  private readonly folders = new Map<string, FolderScan>();

  constructor(private readonly files: ProjectFiles) {}

  /** The pin of the project that `filePath` (a DAG file) belongs to; undefined when none is known. */
  pinFor(filePath: string): AirflowPin | undefined {
    let folder = path.dirname(path.resolve(filePath));
    for (;;) {
      const scan = this.scan(folder);
      if (scan.namesAirflow) return scan.pin;
      const parent = path.dirname(folder);
      if (scan.isRoot || parent === folder) return undefined;
      folder = parent;
    }
  }

  /**
   * Forgets what a created, changed or deleted file or folder could change. Cheap for any path: it
   * drops the scan of the path's folder when the name is one a pin can live in (or `.git`), the scans
   * of the path itself and of the folders under it when it is a folder (deleted or moved), and every
   * scan that read the file (an include). Returns whether anything was dropped.
   */
  invalidate(changed: string): boolean {
    const target = path.resolve(changed);
    const inside = target.endsWith(path.sep) ? target : target + path.sep;
    const pinFolder = isPinFileName(path.basename(target)) ? path.dirname(target) : undefined;
    let dropped = false;
    for (const [folder, scan] of this.folders) {
      if (folder === target || folder.startsWith(inside) || folder === pinFolder || scan.read.has(target)) {
        this.folders.delete(folder);
        dropped = true;
      }
    }
    return dropped;
  }

  /** Forgets everything (e.g. when the workspace's folders change). */
  clear(): void {
    this.folders.clear();
  }

  private scan(folder: string): FolderScan {
    const cached = this.folders.get(folder);
    if (cached) return cached;
    const names = this.files.listDir(folder) ?? [];
    const context: ReadContext = { files: this.files, read: new Set() };
    const mentions = folderMentions(context, folder, names);
    const scan: FolderScan = {
      namesAirflow: mentions.length > 0,
      pin: mentions.find((m) => m.pin)?.pin,
      isRoot: names.includes(".git"),
      read: context.read,
    };
    this.folders.set(folder, scan);
    return scan;
  }
}

/** The Airflow mentions of a folder's project files, in the order they take precedence. */
function folderMentions(context: ReadContext, folder: string, names: readonly string[]): AirflowMention[] {
  const mentions: AirflowMention[] = [];
  const read = (name: string): { file: string; text: string } | undefined => {
    const file = path.join(folder, name);
    context.read.add(file);
    const text = context.files.readFile(file);
    return text === undefined ? undefined : { file, text };
  };
  if (names.includes("Dockerfile")) {
    const dockerfile = read("Dockerfile");
    if (dockerfile) mentions.push(...dockerfileMentions(dockerfile.text, dockerfile.file));
  }
  for (const pattern of [CONSTRAINTS, REQUIREMENTS]) {
    const matching = names.filter((name) => pattern.test(name)).sort(byPlainNameFirst);
    for (const name of matching) mentions.push(...requirementsMentions(context, path.join(folder, name)));
  }
  const readers: [string, (text: string, file: string) => AirflowMention[]][] = [
    ["pyproject.toml", pyprojectMentions],
    ["setup.cfg", setupCfgMentions],
    ["setup.py", setupPyMentions],
  ];
  for (const [name, reader] of readers) {
    if (!names.includes(name)) continue;
    const found = read(name);
    if (found) mentions.push(...reader(found.text, found.file));
  }
  return mentions;
}

/** `requirements.txt` before `requirements-dev.txt`, then by name. */
function byPlainNameFirst(a: string, b: string): number {
  const plain = (name: string) => (/^(requirements|constraints)\.txt$/i.test(name) ? 0 : 1);
  return plain(a) - plain(b) || a.localeCompare(b);
}
