// The MCP server over one store: the SDK's low-level `Server` (tools are declared by the JSON
// Schemas the dsh tools already have; the high-level `McpServer` wants zod shapes instead), with
// the tools, the resources and their subscriptions wired to the provider.
import fs from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { memoryResources } from './resources.mjs'
import { memoryTools } from './tools.mjs'
import { watchResources } from './watch.mjs'

const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))

/** An unconnected server that offers tools and subscribable resources. */
export function createServer() {
  return new Server({ name: 'dsh-memento', version }, { capabilities: { tools: {}, resources: { subscribe: true } } })
}

/**
 * Serve memory on `server`: `tools/*`, `resources/*` and resource subscriptions. `settled()`
 * resolves once every call in flight has answered (a pending approval settles as denied when
 * the connection closes, and its audit row must land before the store is closed).
 * @param {import('@modelcontextprotocol/sdk/server/index.js').Server} server
 * @param {{provider: object, mod: object, session: object, similarOf: (write: object) => object[], writePolicy: 'ask' | 'off'}} options
 */
export function serveMemory(server, { provider, mod, session, similarOf, writePolicy }) {
  const tools = memoryTools({ provider, mod, session, similarOf, writePolicy })
  const resources = memoryResources({ provider, session })
  const watch = watchResources({ server, provider, resources })
  const inFlight = new Set()
  const tracked = (handler) => (request, extra) => {
    const p = handler(request, extra)
    inFlight.add(p)
    p.then(
      () => inFlight.delete(p),
      () => inFlight.delete(p),
    )
    return p
  }
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list }))
  server.setRequestHandler(
    CallToolRequestSchema,
    tracked(async (request, extra) => tools.call(request.params.name, request.params.arguments, extra)),
  )
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: resources.list }))
  server.setRequestHandler(
    ReadResourceRequestSchema,
    tracked(async (request) => resources.read(request.params.uri)),
  )
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    await watch.subscribe(request.params.uri)
    return {}
  })
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    watch.unsubscribe(request.params.uri)
    return {}
  })
  return {
    async settled() {
      watch.close()
      while (inFlight.size) await Promise.allSettled([...inFlight])
    },
  }
}
