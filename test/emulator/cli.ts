/**
 * `npm run emulator`: an Airflow 3.3 REST emulator with demo data on 127.0.0.1, so the sidebar can
 * be tried without Airflow. Port: first argument, `--port N`, or $AIRFLOW_EMULATOR_PORT (default 28080).
 */
import { startEmulator } from "./server";

function portFromArgs(argv: string[]): number {
  let text: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--port" || arg === "-p") text = argv[++i];
    else if (arg.startsWith("--port=")) text = arg.slice("--port=".length);
    else if (arg === "--help" || arg === "-h") {
      console.log("usage: npm run emulator [-- --port N]   (or AIRFLOW_EMULATOR_PORT=N; default 28080)");
      process.exit(0);
    } else if (/^\d+$/.test(arg)) text = arg;
  }
  text ??= process.env.AIRFLOW_EMULATOR_PORT ?? "28080";
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Invalid port "${text}"`);
    process.exit(2);
  }
  return port;
}

async function main(): Promise<void> {
  const port = portFromArgs(process.argv.slice(2));
  let emulator;
  try {
    emulator = await startEmulator({ host: "127.0.0.1", port, seed: "demo" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    console.error(code === "EADDRINUSE" ? `Port ${port} is in use: pass another one (npm run emulator -- --port 28081).` : String(err));
    process.exit(1);
  }
  const s = emulator.state;
  const tokens = Object.entries(emulator.apiTokens)
    .map(([token, user]) => `  ${token}  (${user})`)
    .join("\n");
  console.log(
    [
      `Airflow ${s.config.version} REST emulator listening on ${emulator.url}`,
      ``,
      `Sign in with a username and password:`,
      ...emulator.users.map((u) => `  ${u.username} / ${u.password}${u.role === "admin" ? "" : "  (read-only)"}`),
      `or use a static API token:`,
      tokens,
      ``,
      `Demo data: ${s.dags.length} DAGs, ${s.dagRuns.length} runs, ${s.taskInstances.length} task instances, ${s.assets.length} assets, ` +
        `${s.allTaskEntries().length} task state entries.`,
      `Limits: max_value_storage_bytes=${s.config.maxValueStorageBytes}, default_retention_days=${s.config.defaultRetentionDays}, ` +
        `maximum_page_limit=${s.config.maximumPageLimit}.`,
      ``,
      `Try: curl ${emulator.url}/api/v2/version`,
      `Press Ctrl+C to stop.`,
    ].join("\n"),
  );
  const stop = () => {
    void emulator.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

void main();
