// The frozen system-prompt snapshot (§7.5), rendered by the provider (src/protocol/snapshot.rs,
// pending proposals included), frozen per session *id* (B15) and audited verbatim.
import { strings } from './strings.mjs'

export const SNAPSHOT_SECTION = 'dsh-memento:memory'

/** The words the provider's `snapshot()` renders with, in the plugin's language. */
export function snapshotLabels(language = 'en') {
  const s = strings(language)
  return { header: s.snapshotHeader, groups: s.groups, usageSuffix: s.usageSuffix, proposalsHeader: s.proposalsHeader }
}

/**
 * The snapshot a session with `keys` would be given now: its visible set in the plugin's
 * language, with the pending-proposals notice when proposals are on. Reads only.
 * @param reader the provider or ctx.memory
 */
export function snapshotFor(reader, keys, config) {
  const visible = { agentKey: keys.agentKey, workspaceKey: keys.workspaceKey }
  const maxProposals = config.proposals.enabled ? config.proposals.maxPending : 0
  return reader.snapshot(visible, snapshotLabels(config.language), maxProposals)
}

/** Bounded insertion-ordered cache: frozen texts keyed by store path + session id. */
const FROZEN_CAP = 2048
const frozen = new Map()

export function makeSnapshotProvider({ service, provider, config, dbPath }) {
  return function snapshotText(assemble) {
    const session = assemble?.agent?.session
    const sessionId = typeof session?.id === 'string' && session.id.length > 0 ? session.id : null
    if (sessionId === null) return ''
    const key = `${dbPath}\u0000${sessionId}`
    const cached = frozen.get(key)
    if (cached !== undefined) return cached
    const { workspaceKey, agentKey } = service.keysOf(session)
    let text = snapshotFor(provider, { workspaceKey, agentKey }, config)
    // Audit verbatim, with the keys of the set it shows (what `sessions` lists it under). The
    // provider returns the text frozen for this session id (first write wins), which also keeps a
    // resumed session's prefix stable across reloads and processes.
    text = provider.snapshotRecord(sessionId, text, { workspaceKey, agentKey })
    frozen.set(key, text)
    if (frozen.size > FROZEN_CAP) frozen.delete(frozen.keys().next().value)
    return text
  }
}

/** Test hook: forget frozen snapshots. */
export function clearFrozenSnapshots() {
  frozen.clear()
}
