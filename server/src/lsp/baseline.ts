/**
 * The committed text of open files, which AS301 compares `external_id_key` against, at the revision
 * the file's configuration names (`baseline`, default HEAD). Fetched with git in the background the
 * first time a file turns out to be relevant, again when it is saved, and when its revision changes.
 * In an untrusted workspace git is never run (a repository's config can make git execute programs),
 * so there is no baseline and AS301 stays silent.
 */
import { fileURLToPath } from "node:url";
import { GitBaselines } from "../engine/project/git";
import { errorText, Logger } from "./logger";

interface Entry {
  text: string | undefined;
  revision: string;
  /** Bumped by every fetch, so only the newest fetch's answer is kept. */
  generation: number;
}

export class BaselineStore {
  private readonly entries = new Map<string, Entry>();
  /** Whether the log has said yet that AS301 found a committed version to compare with. */
  private announced = false;
  /** One git process per repository for the server's lifetime; none in an untrusted workspace. */
  private readonly git: GitBaselines | undefined;

  constructor(
    trusted: boolean,
    /** Called when a document's baseline changed and it should be linted again. */
    private readonly changed: (uri: string) => void,
    private readonly log: Logger,
  ) {
    this.git = trusted ? new GitBaselines({ onProblem: (message) => log.error(message) }) : undefined;
  }

  /** Ends the git processes (on shutdown). */
  dispose(): void {
    this.git?.dispose();
  }

  /** The baseline known now; undefined until a fetch has answered, and always in untrusted workspaces. */
  textFor(uri: string): string | undefined {
    return this.entries.get(uri)?.text;
  }

  /** Starts the first fetch for a document that needs a baseline, or a new one when its configuration names another revision. */
  ensure(uri: string, revision = "HEAD"): void {
    const entry = this.entries.get(uri);
    if (!entry || entry.revision !== revision) this.fetch(uri, revision);
  }

  /** After a save (or a commit made meanwhile), fetch again if the document uses a baseline. */
  refresh(uri: string): void {
    const entry = this.entries.get(uri);
    if (entry) this.fetch(uri, entry.revision);
  }

  forget(uri: string): void {
    this.entries.delete(uri);
  }

  private fetch(uri: string, revision: string): void {
    const git = this.git;
    if (!git || !uri.startsWith("file:")) return;
    let path: string;
    try {
      path = fileURLToPath(uri);
    } catch {
      return;
    }
    const entry = this.entries.get(uri) ?? { text: undefined, revision, generation: 0 };
    entry.revision = revision;
    const generation = ++entry.generation;
    this.entries.set(uri, entry);
    git.committedText(path, revision).then(
      (text) => {
        this.logFound(path, text !== undefined);
        if (this.entries.get(uri) !== entry || entry.generation !== generation || entry.text === text) return;
        entry.text = text;
        this.changed(uri);
      },
      (error: unknown) => this.log.error(`Could not read the committed version of ${path}: ${errorText(error)}`),
    );
  }

  /** Said only where it holds: a file in a git repository, with a version at HEAD. */
  private logFound(path: string, found: boolean): void {
    if (!found) {
      this.log.debug(`AS301 does not check ${path}: it is not in a git repository, or not committed at HEAD.`);
    } else if (!this.announced) {
      this.announced = true;
      this.log.info(`AS301 compares external_id_key with git HEAD in files of a git repository, starting with ${path}.`);
    } else {
      this.log.debug(`AS301 compares ${path} with its version at git HEAD.`);
    }
  }
}
