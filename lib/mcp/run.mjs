// `dsh-memento mcp`: one MCP server over stdio for one store, workspace and agent. It runs until
// the client closes its stdin (or the process is told to stop), lets every call in flight answer,
// closes the store, and exits 0. Nothing but protocol messages goes to stdout.
import { randomUUID } from 'node:crypto'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { UsageError } from '../commands/index.mjs'
import { strings } from '../strings.mjs'
import { printConfig } from './config.mjs'
import { makeElicitationGate } from './gate.mjs'
import { createServer, serveMemory } from './server.mjs'
import { serverSession } from './workspace.mjs'

const { mcp: m, cli: s } = strings('en')
/** `ask` asks the person for every write; `off` refuses them. No setting approves by itself. */
const WRITE_POLICIES = ['ask', 'off']

/**
 * Run the server until its client goes away.
 * @param {string[]} args positional arguments (none are taken)
 * @param {Record<string, string | boolean>} flags the command line's flags
 * @param {{open: (flags: object, o: {write: boolean, approval: object, options: object}) => Promise<{mod: object, provider: object, close(): void}>, log: (line: string) => void}} cli
 *   the CLI's store opener (its path, budgets and provider options) and its stderr writer
 * @returns {Promise<number>} the exit code
 */
export async function runMcp(args, flags, { open, log }) {
  if (args.length) throw new UsageError(m.noArguments)
  if (flags['print-config'] !== undefined) {
    const { where, text } = printConfig(flags['print-config'], flags)
    log(where)
    process.stdout.write(text)
    return 0
  }
  const writePolicy = flags['write-policy'] ?? 'ask'
  if (!WRITE_POLICIES.includes(writePolicy)) throw new UsageError(s.badChoice('write-policy', WRITE_POLICIES, writePolicy))

  const server = createServer()
  const approval = makeElicitationGate(server)
  const env = await open(flags, { write: true, approval, options: { writePolicy } })
  try {
    const provider = env.provider
    const session = serverSession(server, { workspace: flags.workspace, agent: flags.agent, id: `mcp:${randomUUID()}`, mod: env.mod })
    const served = serveMemory(server, { provider, mod: env.mod, session, similarOf: approval.similarOf, writePolicy })
    const closed = new Promise((resolve) => {
      server.onclose = resolve
    })
    server.onerror = (e) => log(`dsh-memento mcp: ${e?.message ?? e}`)
    const stop = () => {
      server.close().catch(() => {})
    }
    process.stdin.once('end', stop)
    process.stdin.once('close', stop)
    process.once('SIGTERM', stop)
    process.once('SIGINT', stop)
    await server.connect(new StdioServerTransport())
    await closed
    await served.settled()
    return 0
  } finally {
    env.close()
  }
}
