/** The store browser's commands: each asks what it needs, calls the plain actions, and updates the tree. */
import * as vscode from "vscode";
import { AuthError } from "../../rest/errors";
import type { TaskInstanceRef } from "../../rest/types";
import { addEntry, addressOf, clearEntries, confirmClear, confirmDelete, copiedValue, deleteEntry, taskInstanceName, type EntryOwner } from "../actions";
import { COMMANDS, VIEW_ID } from "../commandIds";
import type { Connections } from "../connections";
import type { EnvironmentConfig } from "../environments";
import type { AssetEntryNode, LoadMoreNode, StoreNode, TaskEntryNode } from "../nodes";
import type { StoreTreeModel } from "../treeModel";
import { entryUri } from "./entryFileSystem";
import { promptEnvironment, promptNewEntry, promptSecret, type EntryDraft } from "./prompts";
import { addEnvironmentSetting, removeEnvironmentSetting, SECTION, setActiveEnvironment } from "./settings";

export interface CommandContext {
  model: StoreTreeModel;
  view: vscode.TreeView<StoreNode>;
  connections: Connections;
  /** Called after anything changed on the server or in the connection (code lenses, status bar). */
  changed(): void;
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
      const existing = new Set(
        (await model.getChildren(owner)).flatMap((n) => (n.kind === "taskEntry" || n.kind === "assetEntry" ? [n.entry.key] : [])),
      );
      const where = owner.kind === "asset" ? `asset "${owner.asset.name}"` : taskInstanceName(owner.ref);
      const draft: EntryDraft = {};
      for (;;) {
        const entry = await promptNewEntry(where, owner.kind === "taskInstance", existing, connections.maxValueLength, draft);
        if (!entry) return;
        try {
          await addEntry(await clientFor(owner.envName), owner, entry);
          break;
        } catch (error) {
          // Asked again with everything typed so far, and the reason above the value.
          draft.failure = error instanceof Error ? error.message : String(error);
        }
      }
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
      await deleteEntry(await clientFor(entry.envName), entry);
      model.removeEntry(entry);
      ctx.changed();
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
      await clearEntries(await clientFor(owner.envName), owner, choice.allMapIndices);
      ctx.changed();
      // Clearing every map index changes the siblings too: their run is read again.
      await model.refresh(choice.allMapIndices && owner.parent ? owner.parent : owner);
    })),
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
          `Could not check the credentials: ${error instanceof Error ? error.message : String(error)}`,
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
