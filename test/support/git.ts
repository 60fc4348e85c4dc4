/** Real temporary git repositories for the tests of AS301's baseline, whatever the machine's git configuration. */
import { execFileSync } from "node:child_process";

/** Runs git in `cwd` with a fixed identity and without the machine's signing, hooks or templates. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", "-c", "init.defaultBranch=main", ...args],
    { cwd, encoding: "utf8" },
  ).trim();
}

/** A complete ResumableJobMixin operator module; without `key`, the class keeps the mixin's default key. */
export function resumableOperator(className: string, key?: string): string {
  const keyLine = key === undefined ? "" : `    external_id_key = "${key}"\n\n`;
  return `from airflow.sdk import BaseOperator, ResumableJobMixin


class ${className}(ResumableJobMixin, BaseOperator):
${keyLine}    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return submit(context)

    def get_job_status(self, external_id, context):
        return status(external_id)

    def is_job_active(self, status):
        return status == "RUNNING"

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        wait(external_id)

    def get_job_result(self, external_id, context):
        return result(external_id)
`;
}
