/**
 * The `airflowStateStore` settings: pulled per document with workspace/configuration (so folder
 * settings apply), cached until the client reports a configuration change.
 */
import { SEVERITY_SETTINGS, type SeveritySetting } from "../engine";
import { ConfigurationPreference, CONFIGURATION_PREFERENCES } from "../engine/project";
import { errorText, Logger } from "./logger";

export const SECTION = "airflowStateStore";

export interface ServerSettings {
  enable: boolean;
  /** `airflowStateStore.showSyntaxErrors`: AS001 runs (Python's language server shows syntax errors already, so it is off by default). */
  showSyntaxErrors: boolean;
  /** Severity per rule code, from `airflowStateStore.rules`, with AS001 off unless `showSyntaxErrors`. */
  severities: Record<string, SeveritySetting>;
  /** `airflowStateStore.configurationPreference`: whether these settings or the project's configuration file win; absent means `editorFirst`. */
  configurationPreference?: ConfigurationPreference;
}

/** The rule `showSyntaxErrors` turns on. */
const SYNTAX_ERRORS_RULE = "AS001";

export const DEFAULT_SETTINGS: ServerSettings = { enable: true, showSyntaxErrors: false, severities: { [SYNTAX_ERRORS_RULE]: "off" } };

const RULE_CODE = /^AS[0-9]{3}$/;

/** Reads the section's raw value; entries that are not valid are reported and ignored. */
export function parseSettings(raw: unknown, warn: (message: string) => void): ServerSettings {
  if (!isObject(raw)) return DEFAULT_SETTINGS;
  const severities: Record<string, SeveritySetting> = {};
  if (isObject(raw.rules)) {
    for (const [key, value] of Object.entries(raw.rules)) {
      const code = key.trim().toUpperCase();
      if (RULE_CODE.test(code) && SEVERITY_SETTINGS.includes(value as SeveritySetting)) severities[code] = value as SeveritySetting;
      else warn(`Ignoring ${SECTION}.rules entry ${JSON.stringify(key)}: ${JSON.stringify(value)}; expected a rule code like "AS101" mapped to one of ${SEVERITY_SETTINGS.join(", ")}.`);
    }
  }
  const showSyntaxErrors = raw.showSyntaxErrors === true;
  if (!showSyntaxErrors) severities[SYNTAX_ERRORS_RULE] = "off";
  const settings: ServerSettings = { enable: raw.enable !== false, showSyntaxErrors, severities };
  const preference = raw.configurationPreference;
  if ((CONFIGURATION_PREFERENCES as readonly unknown[]).includes(preference)) settings.configurationPreference = preference as ConfigurationPreference;
  else if (preference !== undefined) warn(`Ignoring ${SECTION}.configurationPreference ${JSON.stringify(preference)}; expected one of ${CONFIGURATION_PREFERENCES.join(", ")}.`);
  return settings;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How the client answers workspace/configuration, or undefined when it cannot. */
export type ConfigurationPull = (scopeUri: string) => Promise<unknown>;

export class SettingsStore {
  private readonly perDocument = new Map<string, Promise<ServerSettings>>();
  /** Settings pushed with didChangeConfiguration, for clients that cannot be asked. */
  private pushed: ServerSettings = DEFAULT_SETTINGS;
  private readonly warned = new Set<string>();

  constructor(
    private readonly pull: ConfigurationPull | undefined,
    private readonly log: Logger,
  ) {}

  forDocument(uri: string): Promise<ServerSettings> {
    if (!this.pull) return Promise.resolve(this.pushed);
    const cached = this.perDocument.get(uri);
    if (cached) return cached;
    const settings: Promise<ServerSettings> = this.pull(uri).then(
      (raw) => parseSettings(raw, (message) => this.warnOnce(message)),
      (error: unknown) => {
        this.log.error(`Could not read the ${SECTION} settings for ${uri}; using the defaults. ${errorText(error)}`);
        // Ask again next time rather than keeping the defaults.
        if (this.perDocument.get(uri) === settings) this.perDocument.delete(uri);
        return DEFAULT_SETTINGS;
      },
    );
    this.perDocument.set(uri, settings);
    return settings;
  }

  /** didChangeConfiguration: forget what was pulled; `settings` is the notification's payload. */
  changed(settings: unknown): void {
    this.perDocument.clear();
    this.warned.clear();
    const section = isObject(settings) ? settings[SECTION] : undefined;
    if (section !== undefined) this.pushed = parseSettings(section, (message) => this.warnOnce(message));
  }

  forget(uri: string): void {
    this.perDocument.delete(uri);
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.log.error(message);
  }
}
