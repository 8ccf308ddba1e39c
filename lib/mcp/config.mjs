// `dsh-memento mcp --print-config <client>`: the snippet that registers this server with a client,
// in that client's own format. The `mcp` flags given beside it (--db, --workspace, --agent,
// --write-policy) are carried into the command the client runs.
import { strings } from '../plugin/strings.mjs'
import { UsageError } from '../commands/index.mjs'

const { mcp: m } = strings('en')
const CARRIED = ['db', 'workspace', 'agent', 'write-policy']

/** The clients `--print-config` knows. */
export const CLIENTS = ['claude-code', 'codex', 'cursor', 'dsh']

/** `dsh-memento mcp` and the carried flags, as argv after `npx`. */
const argvOf = (flags) => ['dsh-memento', 'mcp', ...CARRIED.flatMap((k) => (flags[k] === undefined ? [] : [`--${k}`, flags[k]]))]
/** A POSIX shell word. */
const shellWord = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`)
/** A TOML basic string (JSON's escapes are TOML's). */
const toml = (s) => JSON.stringify(s)

const SNIPPETS = {
  'claude-code': (argv) => `# Claude Code: run once (add --scope user to use it in every project)
claude mcp add memento -- npx ${['-y', ...argv].map(shellWord).join(' ')}
`,
  codex: (argv) => `# Codex: add to ~/.codex/config.toml
[mcp_servers.memento]
command = "npx"
args = [${['-y', ...argv].map(toml).join(', ')}]
`,
  cursor: (argv) => `// Cursor: .cursor/mcp.json in a project, or ~/.cursor/mcp.json for every project
${JSON.stringify({ mcpServers: { memento: { command: 'npx', args: ['-y', ...argv] } } }, null, 2)}
`,
  dsh: (argv) => `# dsh: add to $DSH_HOME/profiles/<profile>/cordis.patch.yml (dsh's MCP client, @deepseek-ai/dsh-mcp-client).
# dsh's MCP client (0.1.0-rc.8) offers no elicitation, so through it memory is read-only: every write
# is refused (WRITE_DENIED, unavailable). Inside dsh, install the dsh-memento plugin instead
# (dsh plugin add dsh-memento): its memory tool asks on dsh's own approval card.
- insert:
    - id: mcp-memento
      name: '@deepseek-ai/dsh-mcp-client'
      config:
        serverName: memento
        transport: stdio
        command: npx
        args: [${['-y', ...argv].map((a) => JSON.stringify(a)).join(', ')}]
`,
}

/**
 * The setup snippet for `client`.
 * @param {string} client one of {@link CLIENTS}
 * @param {Record<string, string>} flags the command line's flags; the carried ones go into the command
 * @returns {string}
 * @throws {UsageError} for an unknown client
 */
export function printConfig(client, flags = {}) {
  if (!CLIENTS.includes(client)) throw new UsageError(m.badClient(client))
  return SNIPPETS[client](argvOf(flags))
}
