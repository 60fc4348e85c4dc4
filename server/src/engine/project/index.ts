/** Reading the Airflow version a project pins: what the front ends use. */
export { AirflowVersionResolver, isPinFileName } from "./airflowVersion";
export { diskProjectFiles, ProjectFiles } from "./files";
export { AirflowPin, describePin, PinSource, pinStatement } from "./pin";
export {
  ConfigurationOverrides,
  ConfigurationPreference,
  ConfigurationProblem,
  CONFIGURATION_FILE_NAMES,
  CONFIGURATION_PREFERENCES,
  describeConfigurationProblem,
  FileConfiguration,
  isConfigurationFileName,
  ProjectConfiguration,
  ProjectConfigurationOptions,
  SEVERITIES_MOST_SEVERE_FIRST,
  UNUSED_CONFIGURATION,
} from "./configuration";
export { compileGlob } from "./glob";
