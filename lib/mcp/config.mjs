// `dsh-memento mcp --print-config <client>`: the snippet that registers this server with a client,
// in that client's own format. The `mcp` flags given beside it (--db, --workspace, --agent,
// --write-policy) are carried into the command the client runs.
import { strings } from '../strings.mjs'
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

/** Per client, the snippet: exactly what to run or paste (where it goes is the strings table's `mcp.where`). */
const SNIPPETS = {
  'claude-code': (argv) => `claude mcp add memento -- npx ${['-y', ...argv].map(shellWord).join(' ')}\n`,
  codex: (argv) => `[mcp_servers.memento]\ncommand = "npx"\nargs = [${['-y', ...argv].map(toml).join(', ')}]\n`,
  cursor: (argv) => `${JSON.stringify({ mcpServers: { memento: { command: 'npx', args: ['-y', ...argv] } } }, null, 2)}\n`,
  dsh: (argv) => `# dsh's MCP client (0.1.0-rc.8) offers no elicitation, so through it memory is read-only: every
# write is refused (WRITE_DENIED, unavailable). Inside dsh, the dsh-memento plugin itself
# (dsh plugin add dsh-memento) writes, asking on dsh's own approval card.
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
 * The setup snippet for `client`: `where` it goes, and its `text`.
 * @param {string} client one of {@link CLIENTS}
 * @param {Record<string, string>} flags the command line's flags; the carried ones go into the command
 * @returns {{where: string, text: string}}
 * @throws {UsageError} for an unknown client
 */
export function printConfig(client, flags = {}) {
  if (!CLIENTS.includes(client)) throw new UsageError(m.badClient(client))
  return { where: m.where[client], text: SNIPPETS[client](argvOf(flags)) }
}
