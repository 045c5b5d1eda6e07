import type { CommandSpec } from "./command-spec.js";
import type { SHELLS } from "./declarations/process-commands.js";
import { type Flags, GLOBAL_FLAGS } from "./parse-arguments.js";

export type Shell = (typeof SHELLS)[number];

const flagWords = (flags: Flags) =>
  Object.entries(flags).flatMap(([name, spec]) => [`--${name}`, ...(spec.short ? [`-${spec.short}`] : [])]);

/** Every word a command takes: its subcommands, its own flags and the global ones. */
function wordsOf(command: CommandSpec): string[] {
  return [...(command.positionals.choices ?? []), ...flagWords(command.flags), ...flagWords(GLOBAL_FLAGS)];
}

function names(commands: readonly CommandSpec[]): string[] {
  return [...commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]), "help"];
}

function bash(commands: readonly CommandSpec[]): string {
  const cases = commands
    .map((c) => `    ${[c.name, ...(c.aliases ?? [])].join("|")}) words="${wordsOf(c).join(" ")}" ;;`)
    .join("\n");
  return `# mcp-bridge completion for bash: eval "$(mcp-bridge completion bash)" in ~/.bashrc
_mcp_bridge() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" cfg=() words i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
    -c | --config) cfg=(--config "\${COMP_WORDS[i+1]}"); ((i++)) ;;
    -*) ;;
    *) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  case "$cmd" in
    "") words="${names(commands).join(" ")} ${flagWords(GLOBAL_FLAGS).join(" ")}" ;;
    help) words="${names(commands).join(" ")}" ;;
${cases}
    *) words="" ;;
  esac
  # Server and tool names, from the config and the tool lists cached at the last start (no server starts).
  case "$prev" in
  -s | --server) words="$(mcp-bridge __complete servers "\${cfg[@]}" 2>/dev/null)" ;;
  *) case "$cmd" in
    call) [[ "$cur" != -* ]] && words="$words $(mcp-bridge __complete tools "\${cfg[@]}" 2>/dev/null)" ;;
    list | ls) [[ "$cur" != -* ]] && words="$words $(mcp-bridge __complete servers "\${cfg[@]}" 2>/dev/null)" ;;
    esac ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _mcp_bridge mcp-bridge
`;
}

function zsh(commands: readonly CommandSpec[]): string {
  const cases = commands
    .map((c) => `    ${[c.name, ...(c.aliases ?? [])].join("|")}) compadd -- ${wordsOf(c).join(" ")} ;;`)
    .join("\n");
  return `#compdef mcp-bridge
# mcp-bridge completion for zsh: eval "$(mcp-bridge completion zsh)" in ~/.zshrc (after compinit)
_mcp_bridge() {
  local cmd="" i
  for ((i = 2; i < CURRENT; i++)); do
    case "\${words[i]}" in
    -c | --config) ((i++)) ;;
    -*) ;;
    *) cmd="\${words[i]}"; break ;;
    esac
  done
  case "$cmd" in
    "") compadd -- ${names(commands).join(" ")} ${flagWords(GLOBAL_FLAGS).join(" ")} ;;
    help) compadd -- ${names(commands).join(" ")} ;;
${cases}
  esac
  # Server and tool names, from the config and the tool lists cached at the last start (no server starts).
  case "$cmd" in
    call) compadd -- \${(f)"$(mcp-bridge __complete tools 2>/dev/null)"} ;;
    list|ls) compadd -- \${(f)"$(mcp-bridge __complete servers 2>/dev/null)"} ;;
  esac
  _files
}
compdef _mcp_bridge mcp-bridge
`;
}

/** Text inside fish single quotes: only \\ and ' need escaping. */
const fishQuote = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

function fish(commands: readonly CommandSpec[]): string {
  const lines = [
    "# mcp-bridge completion for fish: mcp-bridge completion fish > ~/.config/fish/completions/mcp-bridge.fish",
    "complete -c mcp-bridge -f",
  ];
  const flagLine = (condition: string, name: string, spec: Flags[string]) =>
    `complete -c mcp-bridge${condition} -l ${name}${spec.short ? ` -s ${spec.short}` : ""}${spec.type === "boolean" ? "" : " -r"} -d ${fishQuote(spec.description)}`;
  const all = names(commands).join(" ");
  for (const c of commands) {
    for (const word of [c.name, ...(c.aliases ?? [])])
      lines.push(
        `complete -c mcp-bridge -n ${fishQuote(`not __fish_seen_subcommand_from ${all}`)} -a ${word} -d ${fishQuote(c.summary)}`,
      );
    const seen = ` -n ${fishQuote(`__fish_seen_subcommand_from ${[c.name, ...(c.aliases ?? [])].join(" ")}`)}`;
    if (c.positionals.choices)
      lines.push(`complete -c mcp-bridge${seen} -a ${fishQuote(c.positionals.choices.join(" "))}`);
    for (const [name, spec] of Object.entries(c.flags)) lines.push(flagLine(seen, name, spec));
  }
  for (const [name, spec] of Object.entries(GLOBAL_FLAGS)) lines.push(flagLine("", name, spec));
  // Server and tool names, from the config and the tool lists cached at the last start (no server starts).
  lines.push(
    `complete -c mcp-bridge -n ${fishQuote("__fish_seen_subcommand_from call")} -a ${fishQuote("(mcp-bridge __complete tools 2>/dev/null)")}`,
    `complete -c mcp-bridge -n ${fishQuote("__fish_seen_subcommand_from list ls")} -a ${fishQuote("(mcp-bridge __complete servers 2>/dev/null)")}`,
  );
  return `${lines.join("\n")}\n`;
}

/** The completion script for a shell, generated from the command declarations. Pure. */
export function completionScript(shell: Shell, commands: readonly CommandSpec[]): string {
  return shell === "bash" ? bash(commands) : shell === "zsh" ? zsh(commands) : fish(commands);
}
