/** The tree model as a VS Code TreeView, with auto-refresh of the task instances that are still running. */
import * as vscode from "vscode";
import type { Connections } from "../connections";
import type { StoreNode, TreeAction } from "../nodes";
import { treeItemOf } from "../presentation";
import type { StoreTreeModel } from "../treeModel";
import { VIEW_ID } from "../commandIds";
import { autoRefreshMs } from "./settings";

class StoreTreeDataProvider implements vscode.TreeDataProvider<StoreNode> {
  private readonly changed = new vscode.EventEmitter<StoreNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly model: StoreTreeModel,
    private readonly connections: Connections,
  ) {
    model.onDidChange((node) => this.changed.fire(node ? model.current(node) : undefined));
  }

  getChildren(node?: StoreNode): Promise<StoreNode[]> {
    return this.model.getChildren(node);
  }

  getParent(node: StoreNode): StoreNode | undefined {
    return this.model.getParent(node);
  }

  getTreeItem(node: StoreNode): vscode.TreeItem {
    const health = node.kind === "environment" ? this.connections.health.of(this.connections.find(node.envName)) : undefined;
    const data = treeItemOf(node, new Date(), health);
    const item = new vscode.TreeItem(
      data.label,
      data.collapsible === "none"
        ? vscode.TreeItemCollapsibleState.None
        : data.collapsible === "expanded"
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = node.id;
    item.description = data.description;
    item.tooltip = data.tooltipAction ? tooltipWithAction(data.tooltip ?? data.label, data.tooltipAction) : data.tooltip;
    item.contextValue = data.contextValue;
    if (data.icon) item.iconPath = new vscode.ThemeIcon(data.icon, data.iconColor ? new vscode.ThemeColor(data.iconColor) : undefined);
    if (data.command) item.command = { command: data.command.command, title: data.command.title, arguments: data.command.args };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** The tooltip's lines, then a link that runs the action (trusted for that one command only). */
function tooltipWithAction(text: string, action: TreeAction): vscode.MarkdownString {
  const markdown = new vscode.MarkdownString(undefined, true);
  markdown.isTrusted = { enabledCommands: [action.command] };
  for (const line of text.split("\n")) markdown.appendText(line).appendMarkdown("  \n");
  const args = action.args ? `?${encodeURIComponent(JSON.stringify(action.args))}` : "";
  markdown.appendMarkdown(`\n[${action.title}](command:${action.command}${args})`);
  return markdown;
}

export function createStoreTreeView(model: StoreTreeModel, connections: Connections): { view: vscode.TreeView<StoreNode>; disposables: vscode.Disposable[] } {
  const provider = new StoreTreeDataProvider(model, connections);
  const view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  const expanded = new Set<string>();
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    const interval = autoRefreshMs();
    if (interval > 0) {
      timer = setInterval(() => {
        if (!view.visible) return;
        for (const node of model.activeNodes((n) => expanded.has(n.id))) void model.refresh(node);
      }, interval);
    }
  };
  schedule();

  return {
    view,
    disposables: [
      provider,
      view,
      view.onDidExpandElement((e) => expanded.add(e.element.id)),
      view.onDidCollapseElement((e) => expanded.delete(e.element.id)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("airflowStateStore.autoRefresh")) schedule();
      }),
      { dispose: () => timer && clearInterval(timer) },
    ],
  };
}
