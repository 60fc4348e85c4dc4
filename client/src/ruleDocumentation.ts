/**
 * A rule's page, opened as users of ruff and ESLint expect it: rendered (VS Code's Markdown
 * preview) and read-only, never the generated `docs/rules/ASxxx.md` of the extension's folder as an
 * editable file. The pages are served from a read-only document scheme; the code link of each
 * diagnostic, the rule links in hovers and the "show documentation" code action all run one
 * command that opens the page's preview.
 */
import * as fs from "node:fs";
import { pathToFileURL } from "node:url";
import * as vscode from "vscode";
import type { LanguageClientOptions } from "vscode-languageclient/node";
import { DIAGNOSTIC_SOURCE, SHOW_RULE_DOCUMENTATION_COMMAND } from "../../server/src/lsp/codeActionProtocol";
import type { ExtensionLog } from "./log";

export const RULE_DOCUMENTATION_SCHEME = "airflow-state-rule";

const RULE_CODE = /^AS\d{3}$/;

/** `command:` link that opens the rule's page; the Problems panel and hovers open these. */
export function ruleDocumentationCommandUri(code: string): vscode.Uri {
  return vscode.Uri.parse(`command:${SHOW_RULE_DOCUMENTATION_COMMAND}?${encodeURIComponent(JSON.stringify([code]))}`);
}

/** The page of a rule, or the index of rules (`README`), as a read-only document. */
export function ruleDocumentUri(page: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RULE_DOCUMENTATION_SCHEME, path: `/${page}.md` });
}

export function registerRuleDocumentation(context: vscode.ExtensionContext, log: ExtensionLog): vscode.Disposable[] {
  const folder = context.asAbsolutePath("docs/rules");
  const provider: vscode.TextDocumentContentProvider = {
    provideTextDocumentContent(uri) {
      const page = uri.path.replace(/^\//, "").replace(/\.md$/, "");
      if (!RULE_CODE.test(page) && page !== "README") return `# Unknown page\n\n\`${uri.path}\` is not a rule of Airflow State Store.\n`;
      try {
        return fs.readFileSync(`${folder}/${page}.md`, "utf8");
      } catch (error) {
        log.failure(`Reading the page of ${page}`, error);
        return `# ${page}\n\nThe page could not be read from the extension's folder (${folder}).\n`;
      }
    },
  };
  return [
    vscode.workspace.registerTextDocumentContentProvider(RULE_DOCUMENTATION_SCHEME, provider),
    vscode.commands.registerCommand(SHOW_RULE_DOCUMENTATION_COMMAND, async (code: unknown) => {
      const page = typeof code === "string" && RULE_CODE.test(code.toUpperCase()) ? code.toUpperCase() : "README";
      log.debug(`Showing the page of ${page}.`);
      await vscode.commands.executeCommand("markdown.showPreview", ruleDocumentUri(page));
    }),
  ];
}

/**
 * Rewrites what the server sends so rule links open the rendered page: each diagnostic's code link,
 * and the rule links in hovers (which the server writes as file links into docs/rules/).
 */
export function ruleDocumentationMiddleware(context: vscode.ExtensionContext): NonNullable<LanguageClientOptions["middleware"]> {
  const folderLink = pathToFileURL(context.asAbsolutePath("docs/rules")).href;
  const pageLink = new RegExp(`${escapeRegExp(folderLink)}/(AS\\d{3})\\.md`, "g");
  return {
    handleDiagnostics(uri, diagnostics, next) {
      for (const diagnostic of diagnostics) {
        const code = diagnostic.code;
        if (diagnostic.source !== DIAGNOSTIC_SOURCE || typeof code !== "object" || typeof code.value !== "string" || !RULE_CODE.test(code.value)) continue;
        diagnostic.code = { value: code.value, target: ruleDocumentationCommandUri(code.value) };
      }
      next(uri, diagnostics);
    },
    async provideHover(document, position, token, next) {
      const hover = await next(document, position, token);
      if (!hover) return hover;
      const contents = hover.contents.map((content) => {
        const value = typeof content === "string" ? content : "value" in content && !("language" in content) ? content.value : undefined;
        if (value === undefined || !value.includes(folderLink)) return content;
        const linked = new vscode.MarkdownString(value.replace(pageLink, (_, code: string) => ruleDocumentationCommandUri(code).toString()));
        // Only this command may run from the hover's links.
        linked.isTrusted = { enabledCommands: [SHOW_RULE_DOCUMENTATION_COMMAND] };
        return linked;
      });
      return new vscode.Hover(contents, hover.range);
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
