// The JS plugin's snapshot path, for measuring a provider without a `snapshot` method (the JS
// dsh-memento): its visibility rule and renderer, as that plugin has them. Our provider renders
// natively (src/protocol/snapshot.rs); the bench checks the two texts are equal.
import { strings } from '../lib/strings.mjs'

const ORDER = ['user/user-global', 'user/workspace', 'agent/user-global', 'agent/workspace']

/** Visible to a session: shared or own agent layer; user-global, or this workspace. */
export function isVisible(item, { workspaceKey, agentKey }) {
  return (item.agentKey === '' || item.agentKey === agentKey) && (item.scope === 'user-global' || item.workspaceKey === workspaceKey)
}

/** The snapshot text of `entries` with the usage rows enforced for the session's workspace. */
export function renderSnapshot(entries, budgets, _proposals = [], language = 'en') {
  const s = strings(language)
  const sections = []
  for (const key of ORDER) {
    const list = entries.filter((e) => `${e.track}/${e.scope}` === key)
    if (list.length === 0) continue
    list.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const [track, scope] = key.split('/')
    const row = budgets.find((b) => b.track === track && b.scope === scope) ?? { used: 0, limit: 0 }
    sections.push([`## ${s.groups[key]} — ${row.used}/${row.limit} ${s.usageSuffix}`, ...list.map((e) => `- ${e.text}`)].join('\n'))
  }
  return sections.length === 0 ? '' : [s.snapshotHeader, ...sections].join('\n\n')
}
