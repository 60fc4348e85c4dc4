/**
 * `setup.cfg`: `install_requires` in `[options]` and every list in `[options.extras_require]`, one
 * requirement per line, as setuptools reads them (the value may start on the key's line).
 */
import { AirflowMention, specifierMention } from "./pin";
import { isAirflowDistribution, parseRequirement } from "./requirement";

export function setupCfgMentions(text: string, file: string): AirflowMention[] {
  const mentions: AirflowMention[] = [];
  let section = "";
  /** Whether the lines being read belong to a requirements list. */
  let inList = false;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith(";")) continue;
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) {
      section = header[1].trim().toLowerCase();
      inList = false;
      continue;
    }
    let requirementText: string;
    if (/^\s/.test(line)) {
      // A continuation line of the current key's value.
      if (!inList) continue;
      requirementText = trimmed;
    } else {
      const entry = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(line);
      if (!entry) continue;
      const key = entry[1].toLowerCase().replace(/-/g, "_");
      inList = (section === "options" && key === "install_requires") || section === "options.extras_require";
      if (!inList) continue;
      requirementText = entry[2].trim();
      if (requirementText === "") continue;
    }
    const requirement = parseRequirement(requirementText);
    if (requirement && isAirflowDistribution(requirement.name)) mentions.push(specifierMention(requirement.specifier, { path: file, line: i + 1 }));
  }
  return mentions;
}
