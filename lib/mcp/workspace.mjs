// Which session an MCP server writes and reads as: its workspace is `--workspace`, else the
// client's first `file:` root (asked after `initialize`, asked again when the client says its roots
// changed), else the server's cwd; its agent is `--agent`, else the shared layer.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ResultSchema, RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import * as z from 'zod/v4'

/** `roots/list` as a client may answer it: the SDK's own schema refuses the whole list when one root is not a `file:` URL. */
const RootsResult = ResultSchema.extend({ roots: z.array(z.looseObject({ uri: z.string() })) })

/** The directory of a `file:` root, or null for any other root. */
function rootDir(uri) {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : null
  } catch {
    return null
  }
}

/**
 * The server's session: `header()` resolves `{cwd, agentPreset?}` (what a write context's session
 * header holds) and `keys()` its visibility keys, normalised by the addon as the CLI does.
 * @param {import('@modelcontextprotocol/sdk/server/index.js').Server} server
 * @param {{workspace?: string, agent?: string, id: string, mod: {workspaceKeyOf(cwd: string): string, agentKeyOf(p: string): string}}} options
 */
export function serverSession(server, { workspace, agent, id, mod }) {
  let cwd = workspace === undefined ? null : Promise.resolve(path.resolve(workspace))
  const fromRoots = async () => {
    if (!server.getClientCapabilities()?.roots) return process.cwd()
    try {
      const { roots } = await server.request({ method: 'roots/list' }, RootsResult)
      return roots.map((r) => rootDir(r.uri)).find((d) => d !== null) ?? process.cwd()
    } catch {
      return process.cwd()
    }
  }
  if (workspace === undefined)
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      cwd = null
    })
  const header = async () => {
    cwd ??= fromRoots()
    return { cwd: await cwd, ...(agent !== undefined ? { agentPreset: agent } : {}) }
  }
  return {
    id,
    header,
    /** The write context's `agent`: this server's session. */
    agent: async () => ({ session: { id, header: await header() } }),
    keys: async () => {
      const h = await header()
      return { workspaceKey: mod.workspaceKeyOf(h.cwd), agentKey: mod.agentKeyOf(agent ?? '') }
    },
  }
}
