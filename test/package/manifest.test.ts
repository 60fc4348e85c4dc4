/**
 * What package.json contributes as VS Code users expect it: one command category, settings grouped
 * in titled sections (linter, store browser, logs), and `airflowStateStore.rules` editable in the
 * Settings UI through a value schema the registry generates (`npm run docs` writes it).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, test } from "node:test";
import { RULES_SETTING, withRulesSettingSchema } from "../../server/src/docs/generateDocs";
import { allRules, SEVERITY_SETTINGS } from "../../server/src/engine";
import { FIX_ALL_KIND, SHOW_RULE_DOCUMENTATION_COMMAND } from "../../server/src/lsp/codeActionProtocol";
import { DEFAULT_LOG_LEVEL, LOG_LEVELS } from "../../server/src/lsp/logProtocol";
import { fromRoot } from "../support/paths";

interface Section {
  id: string;
  title: string;
  properties: Record<string, { default?: unknown; enum?: unknown[]; properties?: Record<string, { enum?: unknown[] }>; additionalProperties?: unknown }>;
}

const text = fs.readFileSync(fromRoot("package.json"), "utf8");
const manifest = JSON.parse(text) as {
  contributes: { commands: { command: string; title: string; category?: string }[]; configuration: Section[]; menus: Record<string, { command: string; when?: string }[]> };
};
const sections = manifest.contributes.configuration;
const setting = (key: string) => sections.map((s) => s.properties[key]).find(Boolean);

describe("package.json", () => {
  test("every command has the one category", () => {
    const categories = new Set(manifest.contributes.commands.map((c) => c.category));
    assert.deepEqual([...categories], ["Airflow State Store"]);
  });

  test("declares the commands the extension registers for the log, fix-all and the rule pages", () => {
    const commands = manifest.contributes.commands.map((c) => c.command);
    for (const id of ["airflowStateStore.showLogs", "airflowStateStore.fixAll", SHOW_RULE_DOCUMENTATION_COMMAND]) assert.ok(commands.includes(id), id);
    assert.equal(FIX_ALL_KIND, "source.fixAll.airflowStateStore", "the kind users name in editor.codeActionsOnSave");
  });

  test("settings are grouped in titled sections, each setting in exactly one", () => {
    assert.deepEqual(sections.map((s) => s.title), ["Linter", "Store Browser", "Logs"]);
    const keys = sections.flatMap((s) => Object.keys(s.properties));
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(Object.keys(sections[0].properties).includes(RULES_SETTING));
    assert.ok(Object.keys(sections[1].properties).includes("airflowStateStore.environments"));
  });

  test("the log level setting offers the levels client and server follow", () => {
    const logLevel = setting("airflowStateStore.logLevel");
    assert.deepEqual(logLevel?.enum, [...LOG_LEVELS]);
    assert.equal(logLevel?.default, DEFAULT_LOG_LEVEL);
  });

  test("the rules setting's schema names every registered rule with the five severities, as the generator writes it", () => {
    const rules = setting(RULES_SETTING)!;
    assert.deepEqual(Object.keys(rules.properties ?? {}), allRules.map((r) => r.code));
    for (const property of Object.values(rules.properties ?? {})) assert.deepEqual(property.enum, [...SEVERITY_SETTINGS]);
    assert.equal(rules.additionalProperties, false);
    assert.equal(withRulesSettingSchema(text), text, "package.json is out of date: run npm run docs");
  });

  test("the generator would notice a rule added to the registry", () => {
    const [first] = allRules;
    const added = { ...first, code: "AS999", name: "new-rule" };
    const updated = JSON.parse(withRulesSettingSchema(text, [...allRules, added])!) as typeof manifest;
    const rules = updated.contributes.configuration.map((s) => s.properties[RULES_SETTING]).find(Boolean)!;
    assert.ok(Object.keys(rules.properties ?? {}).includes("AS999"));
  });
});
