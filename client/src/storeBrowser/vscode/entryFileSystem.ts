/**
 * Entries opened as documents (`airflow-state:` URIs). Reading fetches the entry; saving sends it
 * (entryDocument.ts decides PATCH or PUT). A save that fails throws, so VS Code keeps the edited
 * text open and shows the reason, whether it was the value check or Airflow's answer.
 * `stat` reports the entry's `updated_at` as the modification time, so saving over a value a task
 * changed meanwhile makes VS Code ask before overwriting it.
 */
import * as vscode from "vscode";
import { AirflowError, ForbiddenError, NotFoundError } from "../../rest/errors";
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

export function entryUri(address: EntryAddress): vscode.Uri {
  return vscode.Uri.from({ scheme: ENTRY_SCHEME, path: entryPath(address) });
}

export class EntryFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  /** The expiry each open document was read with, to tell an edited `expires_at` line. */
  private readonly readExpiry = new Map<string, string | undefined>();

  constructor(
    private readonly connections: Connections,
    private readonly saved: (address: EntryAddress, entry: StoredEntry) => void,
  ) {}

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const { address, entry } = await this.fetch(uri);
    const size = Buffer.byteLength(renderEntryDocument(address, entry));
    return { type: vscode.FileType.File, ctime: 0, mtime: Date.parse(entry.updated_at) || 0, size };
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    const { address, entry } = await this.fetch(uri);
    this.readExpiry.set(uri.toString(), "expires_at" in entry ? expiryToken(entry.expires_at) : undefined);
    return Buffer.from(renderEntryDocument(address, entry), "utf8");
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    const address = this.addressOf(uri);
    const client = await this.clientFor(address);
    try {
      const plan = planSave(address, Buffer.from(content).toString("utf8"), this.readExpiry.get(uri.toString()), this.connections.maxValueLength, new Date());
      const entry = await saveEntry(client, address, plan);
      this.readExpiry.set(uri.toString(), "expires_at" in entry ? expiryToken(entry.expires_at) : undefined);
      this.saved(address, entry);
    } catch (error) {
      throw this.writeError(error);
    }
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

  private async fetch(uri: vscode.Uri): Promise<{ address: EntryAddress; entry: StoredEntry }> {
    const address = this.addressOf(uri);
    const client = await this.clientFor(address);
    try {
      return { address, entry: await readEntry(client, address) };
    } catch (error) {
      if (error instanceof NotFoundError) throw vscode.FileSystemError.FileNotFound(`"${address.key}" is not in the state store any more.`);
      throw vscode.FileSystemError.Unavailable(error instanceof Error ? error.message : String(error));
    }
  }

  private addressOf(uri: vscode.Uri): EntryAddress {
    const address = addressOfPath(uri.path);
    if (!address) throw vscode.FileSystemError.FileNotFound(uri);
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

  private writeError(error: unknown): Error {
    const message = error instanceof EntryDocumentError || error instanceof AirflowError ? error.message : error instanceof Error ? error.message : String(error);
    const text = `Not saved to Airflow: ${message}`;
    return error instanceof ForbiddenError ? vscode.FileSystemError.NoPermissions(text) : vscode.FileSystemError.Unavailable(text);
  }
}
