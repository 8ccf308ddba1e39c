// The panel's read routes. Reads answer GET and HEAD and never bump recall counters (P3);
// the provider reads the layer, workspace and agent a page asks for (its exact facets) and the
// search; ordering and paging run here, so the panel finds any entry of a store of any size. The
// ledger's views (an entry's history, the audit rows an undo goes with, the sessions and what the
// next one would get) are reads too: planning an undo asks nobody.
import { answer, panelError, readable, send } from './http.mjs'
import { visible, visibleFinding, visibleHistory, visibleSession } from './visible.mjs'
import { isMemoryError } from '../errors.mjs'
import { snapshotFor } from '../snapshot.mjs'
import { strings } from '../strings.mjs'
import { RULES, SCOPES, TRACKS } from '../native.mjs'

export const PANEL_AUDIT_CEILING = 200
/** Sessions the Sessions view lists. */
const PANEL_SESSIONS = 30
/** The provider's largest query page: a search reaches this many matches. */
const SEARCH_CEILING = RULES.maxQueryLimit
const PAGE_DEFAULT = 50
const LAYERS = TRACKS.flatMap((track) => SCOPES.map((scope) => `${track}/${scope}`))
const NONE = '-' // the `workspace`/`agent` filter value for "no workspace" / "shared"

const count = (v) => (v !== null && /^\d{1,9}$/.test(v) ? Number(v) : null)
const positive = (v) => (count(v) > 0 ? count(v) : null)

/** Order of the panel: the four layers, the session's workspace first, newest first. */
function sorter(sessionWorkspace) {
  const ws = (e) => (e.scope !== 'workspace' ? '' : e.workspaceKey === sessionWorkspace ? '\u0000' : `\u0001${e.workspaceKey}`)
  return (a, b) =>
    LAYERS.indexOf(`${a.track}/${a.scope}`) - LAYERS.indexOf(`${b.track}/${b.scope}`) ||
    (ws(a) < ws(b) ? -1 : ws(a) > ws(b) ? 1 : 0) ||
    b.updatedAt - a.updatedAt ||
    (a.id < b.id ? -1 : 1)
}

/** A `workspace`/`agent` filter as an exact facet: `-` is none (user-global / shared), absent or empty is any. */
const facet = (key, value) => (value === NONE ? { [key]: '' } : value ? { [key]: value } : {})

const tally = (entries, key) => {
  const m = new Map()
  for (const e of entries) if (key(e) !== null) m.set(key(e), (m.get(key(e)) ?? 0) + 1)
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, n]) => ({ key: k, count: n }))
}

/**
 * @param deps.service     ctx.memory (reads)
 * @param deps.sessionOf   (sessionId) → `{agent, session}` of a live session, or undefined
 * @param deps.mint        () → a fresh page token
 * @param deps.trustedHosts () → the deployment's non-loopback authorities
 */
export function makeReads({ service, config, sessionOf, mint, trustedHosts }) {
  const language = config.language

  /** The session the page shows: its keys from the live session, else what the page says. */
  function viewer(q) {
    const id = q.get('session') || undefined
    const live = id ? sessionOf(id) : undefined
    const header = live?.session?.header ?? { cwd: q.get('cwd') || undefined, agentPreset: q.get('agentPreset') || undefined }
    const keys = service.keysOf({ id, header })
    const known = id !== undefined && (live !== undefined || header.cwd !== undefined)
    return {
      id: id ?? null,
      live: live !== undefined,
      workspaceKey: known ? keys.workspaceKey : null,
      agentKey: known ? keys.agentKey : null,
    }
  }

  /**
   * The entries of the exact facets `only` (`{track?, scope?, workspaceKey?, agentKey?}`), as the
   * provider reads them: every one, or (`text`) the matches of a search, at most SEARCH_CEILING.
   */
  function entriesOf(only, text) {
    if (text === '') return { all: service.listEntries({ only }), capped: false }
    const r = service.query({ text, limit: SEARCH_CEILING }, { countRecall: false, only })
    return { all: r.entries, capped: r.total > r.entries.length }
  }

  function entries(q) {
    const view = viewer(q)
    const [track, scope] = (q.get('layer') ?? '').split('/')
    const layer = LAYERS.includes(`${track}/${scope}`) ? { track, scope } : {}
    const text = q.get('text') ?? ''
    const facets = { ...facet('workspaceKey', q.get('workspace')), ...facet('agentKey', q.get('agent')) }
    const { all, capped } = entriesOf({ ...layer, ...facets }, text)
    // The workspace and agent counts are of the layer (and the search) alone, so that the page
    // offers every other workspace and agent while one is chosen.
    const unfaceted = Object.keys(facets).length === 0 ? all : entriesOf(layer, text).all
    const workspaces = tally(unfaceted, (e) => (e.scope === 'workspace' ? e.workspaceKey : null))
    const agents = tally(unfaceted, (e) => e.agentKey)
    all.sort(sorter(view.workspaceKey))
    const offset = count(q.get('offset')) ?? 0
    const limit = Math.min(positive(q.get('limit')) ?? PAGE_DEFAULT, config.panelEntriesLimit)
    const page = all.slice(offset, offset + limit)
    const budgets = view.workspaceKey !== null ? service.budgets({ workspaceKey: view.workspaceKey }) : service.budgets()
    return {
      entries: page,
      total: all.length,
      offset,
      limit,
      truncated: offset + page.length < all.length,
      capped,
      session: view,
      budgets,
      workspaces,
      agents,
      language,
    }
  }

  /**
   * Audit rows, each landed change marked with whether the page's session can undo it now
   * (`undo: true`), or why not (`undo: false`, `undoWhy`): the provider plans each revert, so it
   * alone says which rows are changes and what that session sees. Without a live session there
   * is nobody to undo for, and no row is marked.
   */
  function audit(q) {
    const limit = positive(q.get('limit'))
    const rows = service.auditList(limit !== null ? Math.min(limit, PANEL_AUDIT_CEILING) : config.panelAuditLimit)
    const id = q.get('session') || undefined
    const live = id ? sessionOf(id) : undefined
    if (!live) return { rows, language }
    const write = { agent: live.agent ?? { session: live.session } }
    const marked = rows.map((r) => {
      try {
        service.preview('revert', r.seq, write)
        return { ...r, undo: true }
      } catch (e) {
        if (!isMemoryError(e)) throw e
        return e.code === 'INVALID_INPUT' ? r : { ...r, undo: false, undoWhy: visible(e.message) }
      }
    })
    return { rows: marked, language }
  }

  /** An entry's versions: `id` an entry id, or `seq` the audit row that names it. */
  function history(q) {
    const seq = q.get('seq')
    const target = seq !== null ? Number(seq) : q.get('id')
    if (target === null || (seq !== null && !/^\d{1,15}$/.test(seq)))
      throw panelError('INVALID_INPUT', 'history needs an entry id or an audit seq')
    return { history: visibleHistory(service.history(target)), language }
  }

  /**
   * The Sessions view: the sessions of the page's workspace and agent, what one of them was given
   * (`id`, else the page's own session when recorded, else the newest), and what the next session
   * there would get now.
   */
  function sessions(q) {
    const view = viewer(q)
    const keys = view.workspaceKey !== null ? { workspaceKey: view.workspaceKey, agentKey: view.agentKey } : null
    const list = service.sessions({ limit: PANEL_SESSIONS, ...keys }).sessions
    const id = q.get('id') || (list.some((s) => s.sessionId === view.id) ? view.id : list[0]?.sessionId)
    const [given] = id ? service.sessions({ sessionId: id }).sessions : []
    const next = keys ? snapshotFor(service, keys, config) : null
    return {
      session: view,
      sessions: list.map(visibleSession),
      given: given ? visibleSession(given) : null,
      next: next === null ? null : { text: visible(next), chars: next.length },
      language,
    }
  }

  const read = (fn) => (req, res) => {
    if (!readable(req, res, trustedHosts())) return
    try {
      send(req, res, 200, fn(new URL(req.url ?? '/', 'http://localhost').searchParams))
    } catch (e) {
      send(req, res, ...answer(e, language))
    }
  }

  return [
    {
      kind: 'exact',
      path: '/api/memento/panel',
      handler: read(() => ({
        language,
        labels: strings(language).panel,
        token: mint(),
        layers: LAYERS,
        pageSize: Math.min(PAGE_DEFAULT, config.panelEntriesLimit),
      })),
    },
    { kind: 'exact', path: '/api/memento/entries', handler: read(entries) },
    { kind: 'exact', path: '/api/memento/audit', handler: read(audit) },
    { kind: 'exact', path: '/api/memento/history', handler: read(history) },
    { kind: 'exact', path: '/api/memento/sessions', handler: read(sessions) },
    {
      kind: 'exact',
      path: '/api/memento/health',
      handler: read(() => {
        const h = service.health({ staleDays: config.health.staleDays })
        return { checked: h.checked, staleDays: config.health.staleDays, findings: h.findings.map(visibleFinding), language }
      }),
    },
    { kind: 'exact', path: '/api/memento/proposals', handler: read(() => ({ proposals: service.proposalList('pending', 50), language })) },
    // The newest audit seq: every memory change writes a row, so the open panel polls this.
    { kind: 'exact', path: '/api/memento/version', handler: read(() => ({ seq: service.auditList(1)[0]?.seq ?? 0, language })) },
  ]
}
