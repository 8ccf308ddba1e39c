// The frozen system-prompt snapshot (§7.5), frozen per session *id* (B15) and audited verbatim.
import { strings } from './strings.mjs'

export const SNAPSHOT_SECTION = 'dsh-memento:memory'
const ORDER = ['user/user-global', 'user/workspace', 'agent/user-global', 'agent/workspace']

/** Visible to a session: shared or own agent layer; user-global, or this workspace. */
export function isVisible(item, { workspaceKey, agentKey }) {
  return (item.agentKey === '' || item.agentKey === agentKey) && (item.scope === 'user-global' || item.workspaceKey === workspaceKey)
}

/** The words the provider's `snapshot()` renders with, in the plugin's language. */
export function snapshotLabels(language = 'en') {
  const s = strings(language)
  return { header: s.snapshotHeader, groups: s.groups, usageSuffix: s.usageSuffix }
}

/** Append the pending-proposals section to a rendered snapshot. */
export function withProposals(text, proposals, language = 'en') {
  if (proposals.length === 0) return text
  const s = strings(language)
  const section = [`## ${s.proposalsHeader}`, ...proposals.map((p) => `- [${p.id}] ${p.track}/${p.scope}: ${p.text}`)].join('\n')
  return [text || s.snapshotHeader, section].join('\n\n')
}

/**
 * Render the snapshot in JS: what `provider.snapshot(keys, snapshotLabels(language))` renders
 * natively (tests hold them equal), for providers without that method. `budgets` are the rows
 * enforced for the session's workspace, so the usage shown is the usage writes are checked
 * against (D3). Nothing to show → `''`.
 */
export function renderSnapshot(entries, budgets, proposals = [], language = 'en') {
  const s = strings(language)
  const groups = new Map(ORDER.map((k) => [k, []]))
  for (const e of entries) groups.get(`${e.track}/${e.scope}`)?.push(e)
  const sections = []
  for (const key of ORDER) {
    const list = groups.get(key)
    if (list.length === 0) continue
    list.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const [track, scope] = key.split('/')
    const row = budgets.find((b) => b.track === track && b.scope === scope) ?? { used: 0, limit: 0 }
    sections.push([`## ${s.groups[key]} — ${row.used}/${row.limit} ${s.usageSuffix}`, ...list.map((e) => `- ${e.text}`)].join('\n'))
  }
  return withProposals(sections.length === 0 ? '' : [s.snapshotHeader, ...sections].join('\n\n'), proposals, language)
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
    const keys = service.keysOf(session)
    const proposals = config.proposals.enabled
      ? provider.proposalList('pending', 1000).filter((p) => isVisible(p, keys)).slice(0, config.proposals.maxPending)
      : []
    const visible = { agentKey: keys.agentKey, workspaceKey: keys.workspaceKey }
    let text = typeof provider.snapshot === 'function'
      ? withProposals(provider.snapshot(visible, snapshotLabels(config.language)), proposals, config.language)
      : renderSnapshot(provider.listEntries(visible), provider.budgets({ workspaceKey: keys.workspaceKey }), proposals, config.language)
    // Audit verbatim. The provider returns the text frozen for this session id (first write
    // wins), which also keeps a resumed session's prefix stable across reloads and processes.
    text = provider.snapshotRecord(sessionId, text)
    frozen.set(key, text)
    if (frozen.size > FROZEN_CAP) frozen.delete(frozen.keys().next().value)
    return text
  }
}

/** Test hook: forget frozen snapshots. */
export function clearFrozenSnapshots() {
  frozen.clear()
}
