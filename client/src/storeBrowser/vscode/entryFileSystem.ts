/**
 * Entries opened as documents (`airflow-state:` URIs). Reading fetches the entry; saving sends it
 * (entryDocument.ts decides PATCH or PUT).
 *
 * A save that Airflow refuses (or that cannot reach it) does not fail in VS Code's eyes: VS Code
 * would show its own error, with the internal address and a Save As… that cannot help. Instead
 * the text is kept here as the document's content until it is sent or reverted, the tab is marked,
 * and `onDidFailToSave` tells the user why with Retry / Revert.
 * `stat` reports the entry's `updated_at` as the modification time, so saving over a value a task
 * changed meanwhile makes VS Code ask before overwriting it. In an environment where the user was
 * refused a write, entries open read-only.
 */
import * as vscode from "vscode";
import { NotFoundError } from "../../rest/errors";
import type { Connections } from "../connections";
import {
  addressOfPath,
  ENTRY_SCHEME,
  EntryDocumentError,
  entryPath,
  expiryToken,
  planSave,
  readEntry,
  renderEntryDocument,
  saveEntry,
  type EntryAddress,
  type StoredEntry,
} from "../entryDocument";
import { describeEntry, failedSaveNotice, type SaveFailure } from "../entrySave";

export function entryUri(address: EntryAddress): vscode.Uri {
  return vscode.Uri.from({ scheme: ENTRY_SCHEME, path: entryPath(address) });
}

/** Text a save could not send, kept as the document's content until it is sent or reverted. */
interface UnsentText {
  text: string;
  failure: SaveFailure;
  /** The modification time reported meanwhile, so the next save is not taken for a conflict. */
  mtime: number;
}

export class EntryFileSystem implements vscode.FileSystemProvider, vscode.FileDecorationProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  private readonly decorationsChanged = new vscode.EventEmitter<vscode.Uri[]>();
  readonly onDidChangeFileDecorations = this.decorationsChanged.event;
  private readonly failedToSave = new vscode.EventEmitter<{ uri: vscode.Uri; failure: SaveFailure }>();
  /** A save did not reach Airflow's store; the text stays in the editor. */
  readonly onDidFailToSave = this.failedToSave.event;
  /** The expiry each open document was read with, to tell an edited `expires_at` line. */
  private readonly readExpiry = new Map<string, string | undefined>();
  private readonly unsent = new Map<string, UnsentText>();

  constructor(
    private readonly connections: Connections,
    private readonly saved: (address: EntryAddress, entry: StoredEntry) => void,
  ) {}

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const kept = this.unsent.get(uri.toString());
    const readOnly = this.isReadOnly(uri);
    const permissions = readOnly ? vscode.FilePermission.Readonly : undefined;
    if (kept) return { type: vscode.FileType.File, ctime: 0, mtime: kept.mtime, size: Buffer.byteLength(kept.text), permissions };
    const { address, entry } = await this.fetch(uri);
    const size = Buffer.byteLength(renderEntryDocument(address, entry));
    return { type: vscode.FileType.File, ctime: 0, mtime: Date.parse(entry.updated_at) || 0, size, permissions };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const kept = this.unsent.get(uri.toString());
    if (kept) return Buffer.from(kept.text, "utf8");
    const { address, entry } = await this.fetch(uri);
    this.readExpiry.set(uri.toString(), "expires_at" in entry ? expiryToken(entry.expires_at) : undefined);
    return Buffer.from(renderEntryDocument(address, entry), "utf8");
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    await this.send(uri, Buffer.from(content).toString("utf8"));
  }

  /** Sends the kept text again; true when Airflow stored it. */
  async retry(uri: vscode.Uri): Promise<boolean> {
    const kept = this.unsent.get(uri.toString());
    if (!kept) return true;
    const sent = await this.send(uri, kept.text);
    // The editor shows the text as stored (Airflow's formatting, the new expiry).
    if (sent) this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
    return sent;
  }

  /** Drops the kept text: the editor shows the entry as Airflow has it. */
  revert(uri: vscode.Uri): void {
    if (!this.unsent.delete(uri.toString())) return;
    this.decorationsChanged.fire([uri]);
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    const kept = this.unsent.get(uri.toString());
    if (!kept) return undefined;
    return new vscode.FileDecoration("!", `Not saved to Airflow: ${kept.failure.reason}`, new vscode.ThemeColor("list.errorForeground"));
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions("Entries are added from the Airflow State view.");
  }

  delete(): void {
    throw vscode.FileSystemError.NoPermissions("Delete entries from the Airflow State view.");
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions("Entries cannot be renamed; add one under the new key and delete the old one.");
  }

  dispose(): void {
    this.changed.dispose();
    this.decorationsChanged.dispose();
    this.failedToSave.dispose();
  }

  /** Sends `text`; a failure keeps it and is reported through onDidFailToSave, never thrown. */
  private async send(uri: vscode.Uri, text: string): Promise<boolean> {
    const address = this.addressOf(uri);
    const env = this.connections.find(address.env);
    try {
      const connection = await this.connections.connect(env);
      if (connection.kind === "untrusted") throw new EntryDocumentError("Airflow is not contacted from an untrusted workspace.");
      if (connection.kind === "no-environment") throw new EntryDocumentError(`The environment "${address.env}" is no longer configured.`);
      if (connection.kind === "signed-out") throw new EntryDocumentError(`${address.env} is signed out: sign in (Airflow State: Sign In…) and save again.`);
      const plan = planSave(address, text, this.readExpiry.get(uri.toString()), this.connections.maxValueLength, new Date());
      const entry = await saveEntry(connection.client, address, plan);
      this.connections.health.reached(connection.env);
      this.readExpiry.set(uri.toString(), "expires_at" in entry ? expiryToken(entry.expires_at) : undefined);
      if (this.unsent.delete(uri.toString())) this.decorationsChanged.fire([uri]);
      this.saved(address, entry);
      return true;
    } catch (error) {
      const failure = failedSaveNotice(address, env, error);
      if (env && failure.failure) this.connections.health.failed(env, failure.failure);
      this.unsent.set(uri.toString(), { text, failure, mtime: this.unsent.get(uri.toString())?.mtime ?? Date.now() });
      this.decorationsChanged.fire([uri]);
      this.failedToSave.fire({ uri, failure });
      return false;
    }
  }

  private isReadOnly(uri: vscode.Uri): boolean {
    const address = addressOfPath(uri.path);
    return address !== undefined && this.connections.health.of(this.connections.find(address.env)).readOnly !== undefined;
  }

  private async fetch(uri: vscode.Uri): Promise<{ address: EntryAddress; entry: StoredEntry }> {
    const address = this.addressOf(uri);
    const client = await this.clientFor(address);
    try {
      return { address, entry: await readEntry(client, address) };
    } catch (error) {
      if (error instanceof NotFoundError) throw vscode.FileSystemError.FileNotFound(`"${address.key}" is not in the state store of ${describeEntry(address)} any more.`);
      throw vscode.FileSystemError.Unavailable(`${describeEntry(address)} could not be read from ${address.env}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private addressOf(uri: vscode.Uri): EntryAddress {
    const address = addressOfPath(uri.path);
    if (!address) throw vscode.FileSystemError.FileNotFound(`Not a state store entry: ${uri.path}`);
    return address;
  }

  private async clientFor(address: EntryAddress) {
    const env = this.connections.find(address.env);
    if (!env) throw vscode.FileSystemError.Unavailable(`The environment "${address.env}" is no longer configured.`);
    const connection = await this.connections.connect(env);
    if (connection.kind === "untrusted") throw vscode.FileSystemError.NoPermissions("Airflow is not contacted from an untrusted workspace.");
    if (connection.kind !== "ready") throw vscode.FileSystemError.Unavailable(`Sign in to ${address.env} first (Airflow State: Sign In).`);
    return connection.client;
  }
}
