/// `stampede completion bash|zsh|fish`: shell completion for the commands, their options and the
/// files they take.
enum CompletionCommand {
  /// Each command's options (those that take a value end in `=`), as the command parses them.
  static let options: [(command: String, options: [String])] = [
    (
      "run",
      [
        "--seed=", "--out=", "--duration=", "--progress=", "--trace=", "--perfetto=", "--only=", "--quirk=",
        "--mistake=", "--app=", "--counters=", "--set=", "--history=", "--check-determinism", "--json", "--quiet",
      ]
    ),
    (
      "replay",
      [
        "--out=", "--progress=", "--trace=", "--perfetto=", "--only=", "--quirk=", "--mistake=", "--app=",
        "--counters=", "--check-determinism", "--json", "--quiet",
      ]
    ),
    ("shrink", ["--seed=", "--mistake=", "--quirk=", "--app=", "--budget=", "--nearby=", "--out=", "--set="]),
    (
      "sweep",
      [
        "--seeds=", "--jobs=", "--shard=", "--shards=", "--out=", "--corpus-file=", "--mistake=", "--quirk=",
        "--app=", "--recheck=", "--pct=", "--progress=", "--progress-every=", "--set=", "--history=", "--quiet",
        "--corpus",
        "--explore",
      ]
    ),
    ("merge", ["--out=", "--history="]),
    ("capacity", ["--vary=", "--seeds=", "--jobs=", "--out=", "--app=", "--set=", "--history=", "--grid"]),
    (
      "compare",
      ["--fail-on=", "--alpha=", "--out=", "--history=", "--markdown", "--no-replay", "--allow-verdict-changes"]
    ),
    ("history", ["--history=", "--profile=", "--metric=", "--kind=", "--last=", "--html=", "--flaky", "--json"]),
    ("mistakes", ["--seeds=", "--profile=", "--jobs=", "--mistake=", "--json"]),
    ("validate", []),
    ("profile", ["--set=", "--template=", "--out=", "--json", "--as-written", "--force"]),
    ("apps", []),
    ("app", ["--name=", "--stampede=", "--force"]),
    (
      "bench",
      [
        "--pending=", "--holds=", "--repeat=", "--reference=", "--profile=", "--rooms=", "--audience=", "--duration=",
        "--callers=", "--calls-profile=", "--chaos-profile=", "--seeds=", "--app=", "--seed=", "--json",
        "--no-reference", "--no-checking-cost", "--instructions",
      ]
    ),
    ("completion", []),
    ("help", []),
    ("version", []),
  ]

  /// The words after the command that are not options: bench kinds, shells, help topics.
  static let words: [String: [String]] = [
    "bench": ["kernel", "stack", "sweep", "faults", "apps", "seats", "all"],
    "profile": ["show", "schema", "keys", "init"],
    "completion": ["bash", "zsh", "fish"],
    "help": CLI.commandNames,
  ]

  static func main(_ args: [String]) throws -> ExitCode {
    guard args.count == 1, let shell = args.first else {
      throw UsageError("completion takes one shell: bash, zsh or fish")
    }
    switch shell {
    case "bash": print(bash())
    case "zsh": print(zsh())
    case "fish": print(fish())
    default: throw UsageError("completion: no script for '\(shell)' (bash, zsh or fish)")
    }
    return .pass
  }

  static func names(_ command: String) -> [String] {
    (options.first { $0.command == command }?.options ?? []).map { $0.hasSuffix("=") ? String($0.dropLast()) : $0 }
  }

  static func bash() -> String {
    var cases = ""
    for (command, _) in options {
      let words = (names(command) + (words[command] ?? [])).joined(separator: " ")
      cases += "    \(command)) opts=\"\(words)\" ;;\n"
    }
    return """
      # bash completion for stampede (stampede completion bash)
      _stampede() {
        local cur prev opts
        cur="${COMP_WORDS[COMP_CWORD]}"
        prev="${COMP_WORDS[COMP_CWORD-1]}"
        if [ "$COMP_CWORD" -eq 1 ]; then
          COMPREPLY=($(compgen -W "\(CLI.commandNames.joined(separator: " "))" -- "$cur"))
          return
        fi
        case "${COMP_WORDS[1]}" in
      \(cases)    *) opts="" ;;
        esac
        case "$prev" in
          --out|--trace|--perfetto|--profile|--corpus-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        esac
        if [[ "$cur" == -* ]]; then
          COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        else
          COMPREPLY=($(compgen -W "$opts" -- "$cur") $(compgen -f -X '!*.json5' -- "$cur") $(compgen -d -- "$cur"))
        fi
      }
      complete -o filenames -F _stampede stampede
      """
  }

  static func zsh() -> String {
    var cases = ""
    for (command, _) in options {
      let words = (names(command) + (words[command] ?? [])).joined(separator: " ")
      cases += "    \(command)) compadd -- \(words); _files -g '*.json5(-.)' ;;\n"
    }
    return """
      #compdef stampede
      # zsh completion for stampede (stampede completion zsh > "${fpath[1]}/_stampede")
      _stampede() {
        if (( CURRENT == 2 )); then
          compadd -- \(CLI.commandNames.joined(separator: " "))
          return
        fi
        case "${words[2]}" in
      \(cases)    *) _files ;;
        esac
      }
      _stampede "$@"
      """
  }

  static func fish() -> String {
    var lines = [
      "# fish completion for stampede (stampede completion fish > ~/.config/fish/completions/stampede.fish)",
      "complete -c stampede -f",
      "complete -c stampede -n __fish_use_subcommand -a '\(CLI.commandNames.joined(separator: " "))'",
    ]
    for (command, opts) in options {
      for option in opts {
        let name = option.hasSuffix("=") ? String(option.dropLast()) : option
        let takesValue = option.hasSuffix("=") ? " -r" : ""
        lines.append(
          "complete -c stampede -n '__fish_seen_subcommand_from \(command)' -l \(name.dropFirst(2))\(takesValue)")
      }
      if let words = words[command] {
        lines.append(
          "complete -c stampede -n '__fish_seen_subcommand_from \(command)' -a '\(words.joined(separator: " "))'")
      }
      lines.append(
        "complete -c stampede -n '__fish_seen_subcommand_from \(command)' -k -a '(__fish_complete_suffix .json5)'")
    }
    return lines.joined(separator: "\n")
  }
}
