// The MCP server's approval transport: every write the provider plans is asked of the person
// through the client's elicitation dialog, its message the payload's `reason` (the whole change,
// exactly what a dsh approval card shows). Only `accept` approves; nothing here approves alone.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'
import { native } from '../native.mjs'
import { strings } from '../strings.mjs'

const { mcp: m } = strings('en')

/** How long a person has to answer one approval dialog. */
export const APPROVAL_TIMEOUT_MS = 10 * 60_000

/** The approval has no field to fill: accepting the dialog is the consent. */
const NOTHING_TO_FILL = { type: 'object', properties: {} }

/** One line of at most 80 UTF-16 units, cut between code points (never inside a pair), whatever a client calls itself. */
function oneLine(s) {
  let line = ''
  for (const c of native.visibleLines(String(s ?? '?')).join(' ')) {
    if (line.length + c.length > 80) break
    line += c
  }
  return line
}

/** `{name} {version}` of the connected client, as its `initialize` named it. */
export function clientLabel(server) {
  const v = server.getClientVersion()
  return `${oneLine(v?.name)} ${oneLine(v?.version)}`
}

/** The outcome of an elicitation that threw, and why, for the audit label (a closing connection also aborts its calls). */
function failureOf(e, { signal, connected, timeoutMs }) {
  if (!connected || e?.code === ErrorCode.ConnectionClosed) return ['cancelled', m.failure.closed]
  if (signal?.aborted) return ['cancelled', m.failure.aborted]
  if (e?.code === ErrorCode.RequestTimeout) return ['cancelled', m.failure.timeout(timeoutMs)]
  return ['unavailable', m.failure.failed(oneLine(e?.message ?? e))]
}

/**
 * The provider's `gate` and `auditVia` for an MCP `server` (the SDK's low-level `Server`).
 * `similarOf(write)` returns what a write's approval named as alike, for the tool's result.
 * @param {import('@modelcontextprotocol/sdk/server/index.js').Server} server
 * @param {{timeoutMs?: number}} [options]
 */
export function makeElicitationGate(server, { timeoutMs = APPROVAL_TIMEOUT_MS } = {}) {
  const failures = new WeakMap() // write context → why it was not asked or not answered
  const alike = new WeakMap() // write context → the stored entries its payload named as alike
  async function gate(payload, write) {
    if (payload.similar?.length) alike.set(write, payload.similar)
    if (!server.getClientCapabilities()?.elicitation?.form) {
      failures.set(write, m.failure.noElicitation)
      return 'unavailable'
    }
    try {
      const answer = await server.elicitInput(
        { message: payload.reason, requestedSchema: NOTHING_TO_FILL },
        { signal: write.signal, timeout: timeoutMs },
      )
      return answer.action === 'accept' ? 'allowed-once' : answer.action === 'decline' ? 'rejected' : 'cancelled'
    } catch (e) {
      const [outcome, why] = failureOf(e, { signal: write.signal, connected: server.transport !== undefined, timeoutMs })
      failures.set(write, why)
      return outcome
    }
  }
  /** Who carried it (the provider writes `{outcome} (via mcp elicitation, client {name} {version}, {policy}[; why])`); a write `--write-policy off` refused was never asked. */
  function auditVia(outcome, payload, write) {
    const via = payload.policy?.policy === 'off' ? 'mcp --write-policy off' : 'mcp elicitation'
    const why = failures.get(write)
    return { via: `${via}, client ${clientLabel(server)}`, ...(why ? { detail: why } : {}) }
  }
  return { gate, auditVia, similarOf: (write) => alike.get(write) ?? [] }
}
