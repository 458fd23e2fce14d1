// The `tessera` command line (docs/projects.md): one table of commands, each with its usage, options and action, put
// together here from the files of server/src/cli/ (one per group of commands) in the order `tessera --help` lists them.
// `--help` anywhere prints that command's help and does nothing else; `--version` prints the version; a mistake is one
// line naming it and where the help is. Same DATA_DIR / DATABASE_URL as the server.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { importCommand } from "./cli/import.js";
import { keyCommands } from "./cli/keys.js";
import { operatorCommands } from "./cli/operators.js";
import { type Command, Refused, UsageError, type Values } from "./cli/options.js";
import { projectCommands } from "./cli/projects.js";
import { storeCommands } from "./cli/store.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { createServices } from "./services.js";
import { describeStartupError } from "./startup-errors.js";

const COMMANDS: Command[] = [...storeCommands, ...projectCommands, ...keyCommands, ...operatorCommands, importCommand];

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

const line = (c: Command) => `tessera ${c.name}${c.usage ? ` ${c.usage}` : ""}`;

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Usage: tessera <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "tessera <command> --help shows a command's options; tessera --version its version.",
    'Settings come from the environment (DATA_DIR, DATABASE_URL, PORT, …): see README.md "Configuration".',
  ].join("\n");
}

function help(c: Command): string {
  return [
    `Usage: ${line(c)}`,
    "",
    c.summary,
    ...(c.details ? ["", c.details] : []),
    "",
    "Options:",
    "  -h, --help  show this help and do nothing else",
  ].join("\n");
}

/** The command named by the first words of argv (two words before one: "projects create" before "projects"). */
function find(argv: string[]): { command?: Command; rest: string[]; group?: string } {
  const two = COMMANDS.find((c) => c.name === `${argv[0]} ${argv[1]}`);
  if (two) return { command: two, rest: argv.slice(2) };
  const one = COMMANDS.find((c) => c.name === argv[0]);
  if (one) return { command: one, rest: argv.slice(1) };
  const group = argv[0] && COMMANDS.some((c) => c.name.startsWith(`${argv[0]} `)) ? argv[0] : undefined;
  return { rest: argv.slice(group ? 1 : 0), group };
}

const fail = (message: string, hint: string): number => {
  console.error(`tessera: ${message} (${hint})`);
  return 2;
};

export async function main(argv: string[]): Promise<number> {
  const wantsHelp = argv.includes("--help") || argv.includes("-h");
  if (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version") {
    console.log(version());
    return 0;
  }
  if (argv.length === 0 || argv[0] === "help" || (wantsHelp && (argv[0] === "--help" || argv[0] === "-h"))) {
    const { command } = find(argv.slice(1));
    console.log(command ? help(command) : overview());
    return argv.length === 0 ? 2 : 0;
  }
  const { command, rest, group } = find(argv);
  if (!command) {
    if (group) {
      const subs = COMMANDS.filter((c) => c.name.startsWith(`${group} `)).map((c) => c.name.slice(group.length + 1));
      if (wantsHelp) {
        console.log(
          COMMANDS.filter((c) => c.name.startsWith(`${group} `))
            .map(line)
            .join("\n"),
        );
        return 0;
      }
      return fail(rest[0] ? `unknown command: ${group} ${rest[0]}` : `${group} needs a subcommand: ${subs.join(", ")}`, "tessera --help");
    }
    return fail(`unknown command: ${argv[0]}`, "tessera --help lists the commands");
  }
  // --help never acts: no configuration read, no store opened, no server started.
  if (wantsHelp) {
    console.log(help(command));
    return 0;
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (e) {
    const message = (e as Error).message.replace(/\. To specify a positional argument.*$/s, "").replace(/\.$/, "");
    return fail(message.charAt(0).toLowerCase() + message.slice(1), `tessera ${command.name} --help`);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }
  const args = { ...parsed, config };
  try {
    if ("start" in command) return await command.start(args);
    // One-off commands run no background workers (webhook delivery, retention): `serve` does.
    const services = await createServices({ ...config, WORKERS: false }, { groupCommit: false });
    try {
      return await command.run(services, args);
    } finally {
      await services.close();
    }
  } catch (e) {
    if (e instanceof UsageError) return fail(e.message, `tessera ${command.name} --help`);
    if (e instanceof Refused) {
      console.error(`tessera: refused: ${e.message}`);
      return 1;
    }
    // A setting that stops the start (an unreachable database, a port in use…): one line, no stack trace.
    const line = describeStartupError(e, config);
    if (!line) throw e;
    console.error(line);
    return 1;
  }
}
