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
  // configparser reads the file with universal newlines: `\r\n`, `\n` and a lone `\r` end a line.
  const lines = text.split(/\r\n?|\n/);
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
      // `key = value` or `key: value`, split at the first delimiter (a pattern trying white space
      // before the delimiter at every position of the key would be quadratic in the line's length).
      const delimiter = line.search(/[=:]/);
      if (delimiter <= 0) continue;
      const key = line.slice(0, delimiter).trim().toLowerCase().replace(/-/g, "_");
      inList = (section === "options" && key === "install_requires") || section === "options.extras_require";
      if (!inList) continue;
      requirementText = line.slice(delimiter + 1).trim();
      if (requirementText === "") continue;
    }
    const requirement = parseRequirement(requirementText);
    if (requirement && isAirflowDistribution(requirement.name)) mentions.push(specifierMention(requirement.specifier, { path: file, line: i + 1 }));
  }
  return mentions;
}
