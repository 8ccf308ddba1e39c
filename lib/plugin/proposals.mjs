// Auto-capture after a successful compaction (§7.10): a failed compaction drops its summary (B8),
// and sessions without an id never share a slot (B14). Nothing is written to memory: a proposal
// becomes memory only through `/memory proposals approve`.
import { eventText } from '../events.mjs'

export function makeProposalCapture({ provider, service, config }) {
  const summaries = new Map() // session id → latest summary text of the running compaction
  return function onSessionEvent(session, event) {
    if (!config.proposals.enabled || !session || event === null || typeof event !== 'object') return
    const sessionId = typeof session.id === 'string' && session.id.length > 0 ? session.id : null
    if (sessionId === null) return
    if (event.type === 'compaction/start') {
      summaries.delete(sessionId)
    } else if (event.type === 'compaction/summary') {
      const text = eventText(event)
      if (text) summaries.set(sessionId, text)
    } else if (event.type === 'compaction/end') {
      const text = summaries.get(sessionId)
      summaries.delete(sessionId)
      if (typeof event.data?.error === 'string' && event.data.error.length > 0) return
      if (!text) return
      const keys = service.keysOf(session)
      try {
        provider.proposalAdd({
          kind: 'compaction-summary',
          track: 'agent',
          scope: 'workspace',
          text, // the provider keeps at most proposals.maxChars of it, and at most maxPending pending
          source: 'compaction',
          sessionId,
          workspaceKey: keys.workspaceKey,
          agentKey: keys.agentKey,
        })
      } catch {
        /* a proposal is best effort; it must never break the session */
      }
    }
  }
}
