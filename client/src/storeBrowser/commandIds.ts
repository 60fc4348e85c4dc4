/** Command ids of the store browser; package.json contributes the same ids. */
export const COMMANDS = {
  refresh: "airflowStateStore.refresh",
  loadMore: "airflowStateStore.loadMore",
  filterDags: "airflowStateStore.filterDags",
  clearDagFilter: "airflowStateStore.clearDagFilter",
  addEntry: "airflowStateStore.addEntry",
  editEntry: "airflowStateStore.editEntry",
  deleteEntry: "airflowStateStore.deleteEntry",
  clearEntries: "airflowStateStore.clearEntries",
  copyKey: "airflowStateStore.copyKey",
  copyValue: "airflowStateStore.copyValue",
  setExpiry: "airflowStateStore.setExpiry",
  showGuide: "airflowStateStore.showStoreBrowserGuide",
  addEnvironment: "airflowStateStore.addEnvironment",
  removeEnvironment: "airflowStateStore.removeEnvironment",
  signIn: "airflowStateStore.signIn",
  signOut: "airflowStateStore.signOut",
  switchEnvironment: "airflowStateStore.switchEnvironment",
  revealTaskInstance: "airflowStateStore.revealTaskInstance",
  openSettings: "airflowStateStore.openSettings",
  /** VS Code's own command. */
  manageTrust: "workbench.trust.manage",
} as const;

/** The tree view's id (package.json `contributes.views.airflowState`). */
export const VIEW_ID = "airflowStateStore.browser";
