// The MCP resources: the session snapshot dsh would inject for this server's workspace and agent
// (recorded as a snapshot row when read, like the plugin's), and the layers' budgets.
import { createHash } from 'node:crypto'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { DEFAULT_CONFIG } from '../config.mjs'
import { snapshotFor } from '../snapshot.mjs'
import { strings } from '../strings.mjs'

const LANGUAGE = 'en'
const { mcp: m } = strings(LANGUAGE)

export const SNAPSHOT_URI = 'memento://snapshot'
export const BUDGETS_URI = 'memento://budgets'

/**
 * The resources an MCP server lists; `read(uri)` answers a `resources/read`, `current(uri)` the
 * same text without recording anything (for change detection).
 * @param {{provider: object, session: ReturnType<typeof import('./workspace.mjs').serverSession>}} options
 */
export function memoryResources({ provider, session }) {
  const config = { ...DEFAULT_CONFIG, language: LANGUAGE }
  const texts = {
    [SNAPSHOT_URI]: async () => snapshotFor(provider, await session.keys(), config),
    [BUDGETS_URI]: async () => JSON.stringify(provider.budgets({ workspaceKey: (await session.keys()).workspaceKey }), null, 2),
  }
  const list = [
    { uri: SNAPSHOT_URI, name: 'snapshot', title: m.snapshotName, description: m.snapshotDescription, mimeType: 'text/plain' },
    { uri: BUDGETS_URI, name: 'budgets', title: m.budgetsName, description: m.budgetsDescription, mimeType: 'application/json' },
  ]
  const mimeOf = Object.fromEntries(list.map((r) => [r.uri, r.mimeType]))
  const current = (uri) => {
    if (!texts[uri]) throw new McpError(ErrorCode.InvalidParams, m.unknownResource(uri))
    return texts[uri]()
  }
  async function read(uri) {
    if (uri !== SNAPSHOT_URI) return { contents: [{ uri, mimeType: mimeOf[uri], text: await current(uri) }] }
    // Audited as the plugin audits a session's snapshot, with the keys of the set it shows: each
    // distinct text once per server run.
    const keys = await session.keys()
    const shown = snapshotFor(provider, keys, config)
    const id = `${session.id}:snapshot:${createHash('sha256').update(shown).digest('hex').slice(0, 16)}`
    const text = provider.snapshotRecord(id, shown, keys)
    return { contents: [{ uri, mimeType: mimeOf[uri], text }] }
  }
  return { list, read, current }
}
