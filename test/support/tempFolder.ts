/** A temporary folder of files for a test, addressed by relative paths. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

export class TempFolder {
  /** With symlinks resolved, as git and the language server report paths. */
  readonly root: string;

  constructor(prefix: string) {
    this.root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  }

  file(relative: string): string {
    return path.join(this.root, relative);
  }

  uri(relative: string): string {
    return pathToFileURL(this.file(relative)).href;
  }

  /** Writes a file, creating its folders. */
  write(relative: string, text: string): void {
    fs.mkdirSync(path.dirname(this.file(relative)), { recursive: true });
    fs.writeFileSync(this.file(relative), text);
  }

  remove(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
