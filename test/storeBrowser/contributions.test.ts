/** package.json contributes what the store browser registers, and its menus name real commands and context values. */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { COMMANDS, VIEW_ID } from "../../client/src/storeBrowser/commandIds";
import * as path from "node:path";
import { fromRoot } from "../support/paths";

interface Manifest {
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    viewsContainers: { activitybar: { id: string; title: string; icon: string }[] };
    views: Record<string, { id: string; name: string }[]>;
    viewsWelcome: { view: string; contents: string }[];
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
    configuration: { title: string; properties: Record<string, { default?: unknown; description?: string; markdownDescription?: string }> }[];
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

  it("shows a welcome view with Add Environment, Open Settings and the guide when no environment is configured", () => {
    const welcome = manifest.contributes.viewsWelcome.filter((w) => w.view === VIEW_ID);
    assert.equal(welcome.length, 1);
    const links = [...welcome[0].contents.matchAll(/\[([^\]]+)\]\(command:([\w.]+)\)/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(links, [
      ["Add Environment", COMMANDS.addEnvironment],
      ["Open Settings", COMMANDS.openSettings],
      ["the store browser guide", COMMANDS.showGuide],
    ]);
  });

  it("keeps the view's title short: one icon in its title bar, the rest in its … menu", () => {
    assert.ok(manifest.contributes.views.airflowState[0].name.length <= 8, manifest.contributes.views.airflowState[0].name);
    const icons = manifest.contributes.menus["view/title"].filter((item) => item.group?.startsWith("navigation"));
    assert.deepEqual(icons.map((item) => item.command), [COMMANDS.refresh]);
  });

  it("hides every write from the tree's menus once the environment refused a write", () => {
    const writes: string[] = [COMMANDS.addEntry, COMMANDS.deleteEntry, COMMANDS.clearEntries, COMMANDS.setExpiry];
    const items = manifest.contributes.menus["view/item/context"].filter((item) => writes.includes(item.command));
    assert.ok(items.length >= writes.length);
    for (const item of items) assert.match(item.when ?? "", /&& !airflowStateStore\.readOnly$/, item.command);
  });

  it("offers Set Expiry… on task entries and in the title bar of an opened task entry only", () => {
    const [title] = manifest.contributes.menus["editor/title"].filter((item) => item.command === COMMANDS.setExpiry);
    const pattern = new RegExp(/resourcePath =~ \/(.+)\/ &&/.exec(title.when ?? "")![1]);
    assert.ok(pattern.test("/local/spark_nightly/scheduled__2026-05-03T02:00:00+00:00/submit_spark_job/cursor.jsonc"));
    assert.ok(!pattern.test("/local/assets/1 orders%2Fdaily/watermark.jsonc"), "asset entries have no expiry");
    assert.match(title.when ?? "", /!activeEditorIsReadonly/);
    const tree = manifest.contributes.menus["view/item/context"].filter((item) => item.command === COMMANDS.setExpiry);
    assert.deepEqual(tree.map((item) => /viewItem == (\w+)/.exec(item.when ?? "")?.[1]), ["taskEntry"]);
  });

  it("shows users no developer commands or demo addresses in settings and prompts", () => {
    const texts = manifest.contributes.configuration.flatMap((section) => Object.values(section.properties)).flatMap((p) => [p.description ?? "", p.markdownDescription ?? ""]);
    const folder = fromRoot("client", "src", "storeBrowser");
    const sources = [folder, path.join(folder, "vscode")].flatMap((dir) =>
      fs.readdirSync(dir).filter((name) => name.endsWith(".ts")).map((name) => fs.readFileSync(path.join(dir, name), "utf8")),
    );
    for (const text of [...texts, ...sources]) {
      assert.doesNotMatch(text, /npm run|127\.0\.0\.1:28080/);
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
