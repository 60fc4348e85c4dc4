/** Reading the Airflow version a project pins: what the front ends use. */
export { AirflowVersionResolver, isPinFileName } from "./airflowVersion";
export { diskProjectFiles, ProjectFiles } from "./files";
export { AirflowPin, describePin, PinSource, pinStatement } from "./pin";
