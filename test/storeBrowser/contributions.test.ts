/** package.json contributes what the store browser registers, and its menus name real commands and context values. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { COMMANDS, VIEW_ID } from "../../client/src/storeBrowser/commandIds";
import { fromRoot } from "../support/paths";

interface Manifest {
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    viewsContainers: { activitybar: { id: string; title: string; icon: string }[] };
    views: Record<string, { id: string; name: string }[]>;
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
    configuration: { title: string; properties: Record<string, { default?: unknown }> }[];
  };
}

const manifest = JSON.parse(fs.readFileSync(fromRoot("package.json"), "utf8")) as Manifest;
const ours = Object.values(COMMANDS).filter((id) => id.startsWith("airflowStateStore."));
/** Every contextValue presentation.ts gives a node. */
const CONTEXT_VALUES = ["environment", "dagsFolder", "dagsFolder.filtered", "assetsFolder", "dag", "run", "taskInstance", "taskInstance.mapped", "taskEntry", "asset", "assetEntry", "loadMore", "message"];

describe("package.json contributions of the store browser", () => {
  it("contributes every command the browser registers, and no other browser command", () => {
    const contributed = manifest.contributes.commands.map((c) => c.command);
    for (const id of ours) assert.ok(contributed.includes(id), `${id} is not in contributes.commands`);
    const browser = manifest.contributes.commands.filter((c) => (ours as string[]).includes(c.command));
    assert.equal(browser.length, ours.length);
  });

  it("puts the view in its own Activity Bar container with an icon that exists", () => {
    const [container] = manifest.contributes.viewsContainers.activitybar;
    assert.equal(container.title, "Airflow State");
    assert.ok(fs.existsSync(fromRoot(container.icon)), container.icon);
    assert.deepEqual(manifest.contributes.views[container.id].map((v) => v.id), [VIEW_ID]);
  });

  it("menus name contributed commands and match context values the tree gives", () => {
    const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const item of items) {
        assert.ok(contributed.has(item.command), `${menu}: ${item.command}`);
        if (menu !== "view/item/context") continue;
        const when = item.when ?? "";
        const exact = /viewItem == ([\w.]+)/.exec(when);
        const pattern = /viewItem =~ \/(.+)\//.exec(when);
        assert.ok(exact || pattern, `${item.command} has no viewItem condition`);
        const matched = CONTEXT_VALUES.filter((value) => (exact ? value === exact[1] : new RegExp(pattern![1]).test(value)));
        assert.ok(matched.length > 0, `${item.command}: "${when}" matches no node`);
        assert.ok(!matched.includes("message") && !matched.includes("loadMore"), `${item.command} offered on a message or Load more…`);
      }
    }
  });

  it("declares the settings the browser reads, with their documented defaults", () => {
    const properties = manifest.contributes.configuration.find((section) => section.title === "Store Browser")!.properties;
    assert.deepEqual(
      ["environments", "activeEnvironment", "autoRefresh", "maxValueLength", "codeLens.enable"].map((name) => properties[`airflowStateStore.${name}`]?.default),
      [[], "", 0, 65535, true],
    );
  });
});
