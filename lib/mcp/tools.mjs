// The MCP tools: dsh's own `memory` and `memory_recall` tools (lib/tools.mjs), their
// arguments, results, errors and renderings unchanged, called as this server's session and
// answered as MCP results (`structuredContent`, a text rendering, `isError` on a refusal).
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { DEFAULT_CONFIG } from '../config.mjs'
import { MemoryService } from '../service.mjs'
import { strings } from '../strings.mjs'
import { makeMemoryTool, makeRecallTool, MEMORY_OUTPUT_SCHEMA, RECALL_OUTPUT_SCHEMA, renderRecallResult } from '../tools.mjs'

const LANGUAGE = 'en'
const { mcp: m } = strings(LANGUAGE)

/** `schema` without the properties named. */
const without = (schema, ...names) => ({
  ...schema,
  properties: Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !names.includes(k))),
})

/** What to do after a refusal, beside the tool's own rendering. */
function adviceFor(error, writePolicy) {
  if (error?.code !== 'WRITE_DENIED') return undefined
  return writePolicy === 'off' ? m.advice.off : m.advice[error.outcome]
}

/** A tool's value as an MCP result: its rendering (and, when refused, its code and advice) and the value itself. */
function result(value, content, writePolicy) {
  if (value.ok !== false) return { content, structuredContent: value }
  const [first, ...rest] = content
  const text = `${first.text}\n${m.codeLine(value.error?.code, adviceFor(value.error, writePolicy))}`
  return { content: [{ ...first, text }, ...rest], structuredContent: value, isError: true }
}

/**
 * The tools an MCP server lists, and `call(name, args, extra)` answering a `tools/call`.
 * @param {{provider: object, mod: object, session: ReturnType<typeof import('./workspace.mjs').serverSession>, similarOf: (write: object) => object[], writePolicy: 'ask' | 'off'}} options
 */
export function memoryTools({ provider, mod, session, similarOf, writePolicy }) {
  const config = DEFAULT_CONFIG
  const service = new MemoryService(provider, {
    language: LANGUAGE,
    keys: { workspaceKeyOf: mod.workspaceKeyOf, agentKeyOf: mod.agentKeyOf },
  })
  const memory = makeMemoryTool({ service, provider, config, similarOf, source: 'mcp' })
  // Outside dsh there is no session history: memory_recall searches memory alone.
  const recall = makeRecallTool({ service, config, getSessionQuery: () => null })
  const list = [
    {
      name: memory.name,
      description: `${memory.description}\n${m.toolNote}`,
      inputSchema: memory.parameters,
      outputSchema: MEMORY_OUTPUT_SCHEMA,
    },
    {
      name: recall.name,
      description: m.recallDescription,
      inputSchema: without(recall.parameters, 'historyLimit'),
      outputSchema: without(RECALL_OUTPUT_SCHEMA, 'history'),
    },
  ]
  async function call(name, args, extra) {
    const exec = { agent: await session.agent(), signal: extra.signal, callId: `mcp:${extra.requestId}` }
    if (name === memory.name) {
      const value = await memory.execute(args, exec)
      return result(value, memory.output.render(args, value), writePolicy)
    }
    if (name === recall.name) {
      const { history: _history, ...value } = await recall.execute(args, exec)
      return result(value, renderRecallResult(value, LANGUAGE, { history: false }), writePolicy)
    }
    throw new McpError(ErrorCode.InvalidParams, m.unknownTool(name))
  }
  return { list, call }
}
