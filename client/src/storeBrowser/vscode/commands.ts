/** The store browser's commands: each asks what it needs, calls the plain actions, and updates the tree. */
import * as vscode from "vscode";
import { AuthError } from "../../rest/errors";
import type { TaskInstanceRef } from "../../rest/types";
import {
  addEntry,
  addressOf,
  clearEntries,
  confirmClear,
  confirmDelete,
  copiedValue,
  deleteEntry,
  setEntryExpiry,
  taskInstanceName,
  type EntryOwner,
} from "../actions";
import { COMMANDS, VIEW_ID } from "../commandIds";
import type { Connections } from "../connections";
import { addressOfPath, ENTRY_SCHEME, expiryToken } from "../entryDocument";
import { describeEntry } from "../entrySave";
import type { EnvironmentConfig } from "../environments";
import { failureNotice, readOnlyMessage } from "../failures";
import { valueText } from "../format";
import type { AssetEntryNode, LoadMoreNode, StoreNode, TaskEntryNode } from "../nodes";
import type { StoreTreeModel } from "../treeModel";
import { entryUri } from "./entryFileSystem";
import { promptEnvironment, promptExpiry, promptNewEntry, promptSecret } from "./prompts";
import { addEnvironmentSetting, removeEnvironmentSetting, SECTION, setActiveEnvironment } from "./settings";

export interface CommandContext {
  model: StoreTreeModel;
  view: vscode.TreeView<StoreNode>;
  connections: Connections;
  /** Called after anything changed on the server or in the connection (code lenses, status bar). */
  changed(): void;
  /** The README's store browser section, opened rendered. */
  showGuide(): Thenable<unknown>;
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const { model, view, connections } = ctx;
  const selected = (node: StoreNode | undefined): StoreNode | undefined => (node ? model.current(node) : view.selection[0]);
  const run =
    <A extends unknown[]>(body: (...args: A) => Promise<unknown> | unknown) =>
    async (...args: A) => {
      try {
        await body(...args);
      } catch (error) {
        void vscode.window.showErrorMessage(error instanceof Error ? error.message : String(error));
      }
    };
  const clientFor = async (envName: string) => {
    const connection = await connections.connect(connections.find(envName));
    if (connection.kind === "ready") return connection.client;
    throw new Error(connection.kind === "untrusted" ? "Airflow is not contacted from an untrusted workspace." : `Sign in to ${envName} first.`);
  };
  const entryOf = (node: StoreNode | undefined): TaskEntryNode | AssetEntryNode | undefined =>
    node?.kind === "taskEntry" || node?.kind === "assetEntry" ? node : undefined;
  const ownerOf = (node: StoreNode | undefined): EntryOwner | undefined => {
    if (node?.kind === "taskInstance" || node?.kind === "asset") return node;
    if ((node?.kind === "taskEntry" || node?.kind === "assetEntry" || node?.kind === "message") && node.parent) return ownerOf(node.parent);
    return undefined;
  };
  /** Commands take an environment name (message actions) or the environment node (context menus). */
  const envNamed = (arg: unknown): EnvironmentConfig | undefined => {
    const name = typeof arg === "string" ? arg : (arg as StoreNode | undefined)?.kind === "environment" ? (arg as { envName: string }).envName : undefined;
    return name === undefined ? undefined : connections.find(name);
  };
  const envOrActive = (arg: unknown): EnvironmentConfig | undefined => envNamed(arg) ?? connections.active;
  /** Says, before anything is asked, that the environment refused this user's writes. */
  const refusesWrites = (envName: string): boolean => {
    const env = connections.find(envName);
    if (!env || connections.health.of(env).readOnly === undefined) return false;
    void vscode.window.showWarningMessage(readOnlyMessage(env));
    return true;
  };
  /**
   * Tells what failed, where and why, and marks the environment (offline, read-only); Retry runs
   * `again` when sending the same request again can help. Never waits for the user's answer.
   */
  const report = (envName: string, action: string, error: unknown, again?: () => Promise<unknown>): void => {
    const env = connections.find(envName);
    if (!env) {
      void vscode.window.showErrorMessage(`Could not ${action}: the environment "${envName}" is no longer configured.`);
      return;
    }
    const notice = failureNotice(action, env, error, true);
    connections.health.failed(env, notice.failure);
    if (notice.failure.kind === "read-only") {
      void vscode.window.showWarningMessage(notice.message);
      return;
    }
    void vscode.window.showErrorMessage(notice.message, ...(notice.retryable && again ? ["Retry"] : [])).then((answer) => {
      if (answer === "Retry" && again) void run(again)();
    });
  };

  return [
    vscode.commands.registerCommand(COMMANDS.refresh, run(async (node?: StoreNode) => {
      ctx.changed();
      await model.refresh(node);
    })),
    vscode.commands.registerCommand(COMMANDS.loadMore, run((node: LoadMoreNode) => model.loadMore(node))),
    vscode.commands.registerCommand(COMMANDS.filterDags, run(async () => {
      const pattern = await vscode.window.showInputBox({
        title: "Filter DAGs",
        prompt: "Show DAGs whose id contains this text (% and _ are wildcards); empty shows all",
        value: model.dagFilter ?? "",
      });
      if (pattern !== undefined) model.setDagFilter(pattern);
    })),
    vscode.commands.registerCommand(COMMANDS.clearDagFilter, () => model.setDagFilter(undefined)),

    vscode.commands.registerCommand(COMMANDS.addEntry, run(async (node?: StoreNode) => {
      const owner = ownerOf(selected(node));
      if (!owner) return vscode.window.showInformationMessage("Select a task instance or an asset in the Airflow State view.");
      if (refusesWrites(owner.envName)) return;
      const existing = new Set(
        (await model.getChildren(owner)).flatMap((n) => (n.kind === "taskEntry" || n.kind === "assetEntry" ? [n.entry.key] : [])),
      );
      const where = owner.kind === "asset" ? `asset "${owner.asset.name}"` : taskInstanceName(owner.ref);
      const stored = await promptNewEntry({
        where,
        withExpiry: owner.kind === "taskInstance",
        existingKeys: existing,
        maxValueLength: connections.maxValueLength,
        send: async (entry) => {
          try {
            const client = await clientFor(owner.envName);
            await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Adding "${entry.key}" to ${where}…` }, () => addEntry(client, owner, entry));
            const env = connections.find(owner.envName);
            if (env) connections.health.reached(env);
            return undefined;
          } catch (error) {
            const env = connections.find(owner.envName);
            if (!env) return { failure: `The environment "${owner.envName}" is no longer configured.`, final: true };
            const notice = failureNotice(`add "${entry.key}" to ${where}`, env, error, true);
            connections.health.failed(env, notice.failure);
            if (notice.failure.kind !== "read-only") return { failure: notice.message };
            // Nothing typed is lost: the value can still be copied.
            void vscode.window.showWarningMessage(notice.message, "Copy Value").then((answer) => answer && vscode.env.clipboard.writeText(valueText(entry.value)));
            return { failure: notice.message, final: true };
          }
        },
      });
      if (!stored) return;
      ctx.changed();
      await model.refresh(owner);
    })),
    vscode.commands.registerCommand(COMMANDS.editEntry, run(async (node?: StoreNode) => {
      const entry = entryOf(selected(node));
      if (!entry) return;
      const document = await vscode.workspace.openTextDocument(entryUri(addressOf(entry)));
      await vscode.window.showTextDocument(document, { preview: true });
    })),
    vscode.commands.registerCommand(COMMANDS.deleteEntry, run(async (node?: StoreNode) => {
      const entry = entryOf(selected(node));
      if (!entry) return;
      const confirmation = confirmDelete(entry);
      const answer = await vscode.window.showWarningMessage(confirmation.message, { modal: true, detail: confirmation.detail }, ...confirmation.choices.map((c) => c.label));
      if (!answer) return;
      if (refusesWrites(entry.envName)) return;
      const where = entry.kind === "assetEntry" ? `asset "${entry.asset.name}"` : taskInstanceName(entry.ref);
      const send = async () => {
        try {
          await deleteEntry(await clientFor(entry.envName), entry);
        } catch (error) {
          return report(entry.envName, `delete "${entry.entry.key}" from ${where}`, error, send);
        }
        model.removeEntry(entry);
        ctx.changed();
      };
      await send();
    })),
    vscode.commands.registerCommand(COMMANDS.clearEntries, run(async (node?: StoreNode) => {
      const owner = ownerOf(selected(node));
      if (!owner) return;
      const shown = (await model.getChildren(owner)).find((n): n is LoadMoreNode => n.kind === "loadMore")?.total;
      const count = shown ?? (await model.getChildren(owner)).filter((n) => n.kind === "taskEntry" || n.kind === "assetEntry").length;
      const confirmation = confirmClear(owner, count);
      const answer = await vscode.window.showWarningMessage(confirmation.message, { modal: true, detail: confirmation.detail }, ...confirmation.choices.map((c) => c.label));
      const choice = confirmation.choices.find((c) => c.label === answer);
      if (!choice) return;
      if (refusesWrites(owner.envName)) return;
      const where = owner.kind === "asset" ? `asset "${owner.asset.name}"` : taskInstanceName(owner.ref);
      const send = async () => {
        try {
          await clearEntries(await clientFor(owner.envName), owner, choice.allMapIndices);
        } catch (error) {
          return report(owner.envName, `clear the state store of ${where}${choice.allMapIndices ? " (all map indices)" : ""}`, error, send);
        }
        ctx.changed();
        // Clearing every map index changes the siblings too: their run is read again.
        await model.refresh(choice.allMapIndices && owner.parent ? owner.parent : owner);
      };
      await send();
    })),
    vscode.commands.registerCommand(COMMANDS.setExpiry, run(async (target?: StoreNode | vscode.Uri) => {
      if (target instanceof vscode.Uri) return setDocumentExpiry(target);
      const entry = entryOf(selected(target));
      if (entry?.kind !== "taskEntry") return vscode.window.showInformationMessage("Select a task state store entry: asset entries have no expiry.");
      if (refusesWrites(entry.envName)) return;
      const where = taskInstanceName(entry.ref);
      const expiresAt = await promptExpiry(entry.entry.key, where);
      if (expiresAt === undefined) return;
      const send = async () => {
        try {
          const stored = await setEntryExpiry(await clientFor(entry.envName), entry.ref, entry.entry.key, expiresAt);
          model.replaceTaskEntry(entry, stored);
        } catch (error) {
          return report(entry.envName, `set the expiry of "${entry.entry.key}" in ${where}`, error, send);
        }
        ctx.changed();
      };
      await send();
    })),
    vscode.commands.registerCommand(COMMANDS.showGuide, () => ctx.showGuide()),
    vscode.commands.registerCommand(COMMANDS.copyKey, run(async (node?: StoreNode) => {
      const entry = entryOf(selected(node));
      if (entry) await vscode.env.clipboard.writeText(entry.entry.key);
    })),
    vscode.commands.registerCommand(COMMANDS.copyValue, run(async (node?: StoreNode) => {
      const entry = entryOf(selected(node));
      if (entry) await vscode.env.clipboard.writeText(copiedValue(entry));
    })),

    vscode.commands.registerCommand(COMMANDS.addEnvironment, run(async () => {
      const env = await promptEnvironment(connections.environments);
      if (!env) return;
      await addEnvironmentSetting(env);
      // Typed by the user here, so not a workspace's choice even when it lands in the workspace's settings.
      await connections.confirm(env, ["workspace-environment"]);
      await setActiveEnvironment(env.name);
      if (env.auth !== "none" && connections.trusted) await signIn(env);
    })),
    vscode.commands.registerCommand(COMMANDS.removeEnvironment, run(async (name?: unknown) => {
      const env = envNamed(name) ?? (await pickEnvironment("Remove which environment?"));
      if (!env) return;
      const answer = await vscode.window.showWarningMessage(
        `Remove the environment "${env.name}" (${env.baseUrl})?`,
        { modal: true, detail: "Its password or token is deleted from VS Code's secret storage." },
        "Remove",
      );
      if (answer !== "Remove") return;
      await connections.signOut(env);
      await removeEnvironmentSetting(env.name);
      const next = connections.environments.find((e) => e.name !== env.name);
      if (connections.active?.name === env.name && next) await setActiveEnvironment(next.name);
    })),
    vscode.commands.registerCommand(COMMANDS.signIn, run(async (name?: unknown) => {
      const env = envOrActive(name);
      if (!env) return vscode.commands.executeCommand(COMMANDS.addEnvironment);
      await signIn(env);
    })),
    vscode.commands.registerCommand(COMMANDS.signOut, run(async (name?: unknown) => {
      const env = envOrActive(name);
      if (!env) return;
      await connections.signOut(env);
      ctx.changed();
      await model.refresh();
    })),
    vscode.commands.registerCommand(COMMANDS.switchEnvironment, run(async () => {
      const env = await pickEnvironment("Browse which Airflow environment?", true);
      if (env) await setActiveEnvironment(env.name);
    })),
    vscode.commands.registerCommand(COMMANDS.revealTaskInstance, run(async (ref: Required<TaskInstanceRef>) => {
      await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
      const located = await model.locateTaskInstance(ref);
      if ("reason" in located) return vscode.window.showWarningMessage(located.reason);
      await view.reveal(located.node, { select: true, focus: true, expand: true });
    })),
    vscode.commands.registerCommand(COMMANDS.openSettings, () => vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.environments`)),
  ];

  /**
   * Set Expiry… in an opened entry's title bar: the `expires_at` line gets the new expiry and the
   * document is saved, so the value shown is what is sent with it.
   */
  async function setDocumentExpiry(uri: vscode.Uri): Promise<unknown> {
    const address = uri.scheme === ENTRY_SCHEME ? addressOfPath(uri.path) : undefined;
    if (address?.store !== "task") return vscode.window.showInformationMessage("Only task state store entries have an expiry.");
    if (refusesWrites(address.env)) return;
    const document = await vscode.workspace.openTextDocument(uri);
    const expiresAt = await promptExpiry(address.key, describeEntry(address).replace(/^"[^"]*" of /, ""));
    if (expiresAt === undefined) return;
    const line = [...Array(document.lineCount).keys()].find((i) => /^\s*\/\/\s*expires_at:/.test(document.lineAt(i).text));
    const text = `// expires_at: ${expiryToken(expiresAt)}`;
    const edit = new vscode.WorkspaceEdit();
    if (line === undefined) edit.insert(uri, new vscode.Position(0, 0), `${text}\n`);
    else edit.replace(uri, document.lineAt(line).range, text);
    await vscode.workspace.applyEdit(edit);
    await document.save();
    // Read back as stored, so the line shows the date Airflow set rather than "default".
    if (!document.isDirty) await vscode.commands.executeCommand("workbench.action.files.revert", uri);
    ctx.changed();
  }

  async function pickEnvironment(title: string, offerAdd = false): Promise<EnvironmentConfig | undefined> {
    const items: (vscode.QuickPickItem & { env?: EnvironmentConfig })[] = connections.environments.map((env) => ({
      label: env.name,
      description: env.baseUrl,
      detail: env.name === connections.active?.name ? "active" : undefined,
      env,
    }));
    if (offerAdd) items.push({ label: "$(add) Add environment…" });
    const picked = await vscode.window.showQuickPick(items, { title });
    if (picked && !picked.env) await vscode.commands.executeCommand(COMMANDS.addEnvironment);
    return picked?.env;
  }

  /** Asks for the secret until Airflow accepts it (or the user gives up), then keeps it. */
  async function signIn(env: EnvironmentConfig): Promise<void> {
    if (!connections.trusted) {
      void vscode.window.showWarningMessage("Credentials are not sent from an untrusted workspace.", "Manage Workspace Trust").then((a) => {
        if (a) void vscode.commands.executeCommand(COMMANDS.manageTrust);
      });
      return;
    }
    if (env.auth === "none") return;
    const questions = connections.questions(env);
    for (const question of questions) {
      const answer = await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, question.accept);
      if (answer !== question.accept) return;
    }
    if (questions.length > 0) {
      await connections.confirm(env, questions.map((q) => q.kind));
      if (await connections.hasSecret(env)) {
        // The stored secret was held back only by these questions.
        ctx.changed();
        await model.refresh();
        return;
      }
    }
    let failure: string | undefined;
    for (;;) {
      const secret = await promptSecret(env, failure);
      if (!secret) return;
      try {
        await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Signing in to ${env.name}…` }, () => connections.signIn(env, secret));
        break;
      } catch (error) {
        if (error instanceof AuthError) {
          failure = error.message;
          continue;
        }
        const keep = await vscode.window.showWarningMessage(
          `Could not check the credentials for ${env.name} (${env.baseUrl}): ${error instanceof Error ? error.message : String(error)}`,
          "Keep them anyway",
        );
        if (keep) await connections.storeSecret(env, secret);
        break;
      }
    }
    ctx.changed();
    await model.refresh();
  }
}
