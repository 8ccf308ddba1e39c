// JSON routes of the web panel (§7.9). Only the user's own page reaches them (dsh's
// trusted-request rule, ./trust.mjs). Reads answer GET and HEAD and never bump recall
// counters (P3); search, filters and paging run here over the provider's own query and list,
// so the panel finds any entry of a store of any size. The one write route answers only a
// same-origin JSON POST carrying the page's token. Without a `digest` it only previews: the
// provider plans the change and the page shows that payload (every field of every entry) for
// confirmation; with the digest of what the user confirmed it writes, through the same gate as
// a typed `/memory` command, audited `(via panel, …)`, and only if the change is still exactly
// that one. The panel's own browser modules (client/) are served as they are by one more
// read-only route, from a fixed list of names.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isSameOriginWrite, isTrustedApiRequest } from './trust.mjs'
import { strings } from '../strings.mjs'
import { isMemoryError, memoryError } from '../errors.mjs'
import { native, RULES, SCOPES, TRACKS } from '../native.mjs'

/** A stored string as the page may show it: control and invisible characters as escapes (multi-line text keeps its line breaks). */
const visible = (s) => native.visibleLines(String(s ?? '')).join('\n')
const visibleEntry = (e) => ({ ...e, text: visible(e.text), source: native.visibleText(e.source), workspaceKey: native.visibleText(e.workspaceKey), agentKey: native.visibleText(e.agentKey), tags: e.tags.map((t) => native.visibleText(t)) })
const visibleSimilar = (x) => ({ id: x.id, text: visible(x.text), score: x.score, relation: x.relation, reason: x.reason })
/** What the confirmation shows of a payload. */
const previewOf = (p) => ({ action: p.action, digest: p.digest, warnings: p.warnings ?? [], before: p.before.map(visibleEntry), after: p.after.map(visibleEntry), similar: (p.similar ?? []).map(visibleSimilar) })
/**
 * A health finding as the Health view shows it. Its fix is what the page previews through the
 * write route (entry ids and versions, the kept text): the preview then shows the whole change.
 */
const visibleFinding = (f) => ({
  id: f.id,
  kind: f.kind,
  track: f.track,
  scope: f.scope,
  workspaceKey: native.visibleText(f.workspaceKey),
  agentKey: native.visibleText(f.agentKey),
  detail: visible(f.detail),
  entries: f.entries.map((e) => ({ id: e.id, version: e.version, text: visible(e.text) })),
  ...(f.fix ? { fix: { action: f.fix.action, why: f.fix.why, frees: f.fix.frees, ids: f.fix.entries.map((e) => e.id), text: f.fix.input.text, tags: f.fix.input.tags } } : {}),
})

export const PANEL_AUDIT_CEILING = 200
/** The provider's largest query page: a search reaches this many matches. */
const SEARCH_CEILING = RULES.maxQueryLimit
const PAGE_DEFAULT = 50
const BODY_CEILING = 256 * 1024
const LAYERS = TRACKS.flatMap((track) => SCOPES.map((scope) => `${track}/${scope}`))
const NONE = '-' // the `workspace`/`agent` filter value for "no workspace" / "shared"

const count = (v) => (v !== null && /^\d{1,9}$/.test(v) ? Number(v) : null)
const positive = (v) => (count(v) > 0 ? count(v) : null)

function send(req, res, status, body, headers = {}) {
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('cache-control', 'no-store')
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v)
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body))
}

/** A protocol error the panel answers with HTTP `status`: a refusal of the request itself. */
const panelError = (code, message, status = 400) => Object.assign(memoryError(code, message), { status })

/** The body of a refused request: the protocol error as the panel shows it (code, message, advice). */
const refusal = (code, message, details = {}, advice = null) => ({ error: { code, message, advice, details } })

/** Why a write was refused before it reached the provider: its page token (reloading the page gets a fresh one). */
const PAGE_TOKEN = Object.freeze({ outcome: 'denied (missing or invalid page token)', reason: 'pageToken' })

/**
 * The panel's ES modules: client/client.js (the one file dsh serves) imports panel.js from here,
 * and panel.js the others by relative path. Only these names are served, each byte for byte from
 * client/: a name is looked up in this list, never joined into a path.
 */
export const CLIENT_MODULES = Object.freeze(['panel.js', 'state.js', 'api.js', 'render.js', 'sync.js', 'events.js', 'style.js'])
const CLIENT_ROUTE = '/api/memento/client'
const CLIENT_DIR = new URL('../../client/', import.meta.url)

/**
 * The refusals every read-only route makes, answered here: a foreign page gets a bare 403
 * whatever the method (as dsh's own /api answers it), a method other than GET/HEAD a 405.
 * True when the request may be read.
 */
function readable(req, res, trustedHosts) {
  if (!isTrustedApiRequest(req, trustedHosts)) {
    res.statusCode = 403
    res.end('forbidden')
    return false
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(req, res, 405, refusal('INVALID_INPUT', `${req.method} is not allowed: this route only reads`, { method: req.method }), { allow: 'GET, HEAD' })
    return false
  }
  return true
}

/** `GET|HEAD /api/memento/client/<name>`: public static code, so no token, but only for dsh's own page like every route here. */
function clientModule(req, res, trustedHosts) {
  if (!readable(req, res, trustedHosts)) return
  let name = null
  try {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost')
    if (pathname.startsWith(`${CLIENT_ROUTE}/`)) name = pathname.slice(CLIENT_ROUTE.length + 1)
  } catch {}
  let body = null
  if (CLIENT_MODULES.includes(name)) {
    try {
      body = readFileSync(new URL(name, CLIENT_DIR))
    } catch {}
  }
  if (body === null) {
    send(req, res, 404, refusal('INVALID_INPUT', `no panel module ${JSON.stringify(name)}`, { module: name }))
    return
  }
  // `no-cache` with a strong validator, as dsh serves client.js: each page load revalidates, so an updated plugin's modules never come from an old cache.
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`
  res.setHeader('content-type', 'text/javascript; charset=utf-8')
  res.setHeader('cache-control', 'no-cache')
  res.setHeader('etag', etag)
  res.setHeader('x-content-type-options', 'nosniff')
  const seen = typeof req.headers?.['if-none-match'] === 'string' ? req.headers['if-none-match'].split(',').map((t) => t.trim().replace(/^W\//, '')) : []
  if (seen.includes(etag) || seen.includes('*')) {
    res.statusCode = 304
    res.end()
    return
  }
  res.statusCode = 200
  res.setHeader('content-length', String(body.length))
  res.end(req.method === 'HEAD' ? undefined : body)
}

async function readJson(req) {
  let body = typeof req.body === 'string' ? req.body : ''
  if (typeof req[Symbol.asyncIterator] === 'function') {
    const chunks = []
    let size = 0
    for await (const chunk of req) {
      size += chunk.length
      if (size > BODY_CEILING) throw panelError('INVALID_INPUT', `request body over ${BODY_CEILING} bytes`, 413)
      chunks.push(Buffer.from(chunk))
    }
    body = Buffer.concat(chunks).toString('utf8')
  }
  try {
    const v = JSON.parse(body)
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object')
    return v
  } catch (e) {
    throw panelError('INVALID_INPUT', `the request body is not a JSON object (${e.message})`)
  }
}

/** Order of the panel: the four layers, the session's workspace first, newest first. */
function sorter(sessionWorkspace) {
  const ws = (e) => (e.scope !== 'workspace' ? '' : e.workspaceKey === sessionWorkspace ? '\u0000' : `\u0001${e.workspaceKey}`)
  return (a, b) =>
    LAYERS.indexOf(`${a.track}/${a.scope}`) - LAYERS.indexOf(`${b.track}/${b.scope}`) ||
    (ws(a) < ws(b) ? -1 : ws(a) > ws(b) ? 1 : 0) ||
    b.updatedAt - a.updatedAt ||
    (a.id < b.id ? -1 : 1)
}

const tally = (entries, key) => {
  const m = new Map()
  for (const e of entries) if (key(e) !== null) m.set(key(e), (m.get(key(e)) ?? 0) + 1)
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, n]) => ({ key: k, count: n }))
}

/**
 * @param deps.service     ctx.memory (reads)
 * @param deps.provider    the provider (panel writes need the user-consent transport)
 * @param deps.userWrite   (agent, signal?, digest?) → a write context bound to that transport, labelled `panel`: its gate allows only the change whose digest the user confirmed
 * @param deps.sessionOf   (sessionId) → `{agent, session}` of a live session, or undefined
 * @param deps.trustedHosts () → the deployment's non-loopback authorities
 */
export function makeRoutes({ service, provider, config, userWrite, sessionOf = () => undefined, trustedHosts = () => [] }) {
  const language = config.language
  const secret = randomBytes(32)
  const sign = (nonce) => createHmac('sha256', secret).update(nonce).digest('base64url')
  const mint = () => {
    const nonce = randomBytes(18).toString('base64url')
    return `${nonce}.${sign(nonce)}`
  }
  const tokenOk = (token) => {
    if (typeof token !== 'string') return false
    const [nonce, mac] = token.split('.')
    if (!nonce || !mac) return false
    const want = Buffer.from(sign(nonce))
    const got = Buffer.from(mac)
    return want.length === got.length && timingSafeEqual(want, got)
  }

  /** The session the page shows: its keys from the live session, else what the page says. */
  function viewer(q) {
    const id = q.get('session') || undefined
    const live = id ? sessionOf(id) : undefined
    const header = live?.session?.header ?? { cwd: q.get('cwd') || undefined, agentPreset: q.get('agentPreset') || undefined }
    const keys = service.keysOf({ id, header })
    const known = id !== undefined && (live !== undefined || header.cwd !== undefined)
    return { id: id ?? null, live: live !== undefined, workspaceKey: known ? keys.workspaceKey : null, agentKey: known ? keys.agentKey : null }
  }

  function entries(q) {
    const view = viewer(q)
    const [track, scope] = (q.get('layer') ?? '').split('/')
    const layer = LAYERS.includes(`${track}/${scope}`) ? { track, scope } : {}
    const text = q.get('text') ?? ''
    let all
    let capped = false
    if (text !== '') {
      const r = service.query({ ...layer, text, limit: SEARCH_CEILING }, { countRecall: false })
      all = r.entries
      capped = r.total > r.entries.length
    } else {
      all = service.listEntries()
      if (layer.track) all = all.filter((e) => e.track === layer.track && e.scope === layer.scope)
    }
    const workspaces = tally(all, (e) => (e.scope === 'workspace' ? e.workspaceKey : null))
    const agents = tally(all, (e) => e.agentKey)
    const ws = q.get('workspace')
    if (ws === NONE) all = all.filter((e) => e.scope !== 'workspace')
    else if (ws) all = all.filter((e) => e.scope === 'workspace' && e.workspaceKey === ws)
    const agent = q.get('agent')
    if (agent === NONE) all = all.filter((e) => e.agentKey === '')
    else if (agent) all = all.filter((e) => e.agentKey === agent)
    all.sort(sorter(view.workspaceKey))
    const offset = count(q.get('offset')) ?? 0
    const limit = Math.min(positive(q.get('limit')) ?? PAGE_DEFAULT, config.panelEntriesLimit)
    const page = all.slice(offset, offset + limit)
    const budgets = view.workspaceKey !== null ? service.budgets({ workspaceKey: view.workspaceKey }) : service.budgets()
    return { entries: page, total: all.length, offset, limit, truncated: offset + page.length < all.length, capped, session: view, budgets, workspaces, agents, language }
  }

  // --- writes ---------------------------------------------------------------------------
  // What a text, a tag list, a layer or a proposal id must be is the provider's rule: the
  // fields go to it as sent, and its coded error comes back.
  /** The entry the user saw, unchanged since: the panel targets exactly what it showed. */
  function shown(id, version) {
    const e = typeof id === 'string' ? service.entry(id) : null
    if (!e) throw panelError('ENTRY_NOT_FOUND', `no entry ${JSON.stringify(String(id))}: it was removed since the panel showed it`, 409)
    if (version !== undefined && e.version !== version) throw panelError('ENTRY_NOT_FOUND', `entry ${id} changed since the panel showed it (version ${version}, now ${e.version})`, 409)
    return e
  }
  // The protocol targets an entry by a unique substring within a layer: the entry's whole
  // text, in its own workspace and agent's view, names it (unless another entry contains it).
  const target = (e) => ({ track: e.track, scope: e.scope, match: e.text, workspaceKey: e.workspaceKey, agentKey: e.agentKey })

  /** The provider call a panel request names: `[action, input]` (`approve`/`dismiss`: a proposal id). */
  function change(body) {
    switch (body.op) {
      case 'add':
        return ['add', { track: body.track, scope: body.scope, text: body.text, tags: body.tags, source: 'panel' }]
      case 'replace': {
        const e = shown(body.id, body.version)
        return ['replace', { ...target(e), text: body.text, tags: body.tags ?? null, source: 'panel' }]
      }
      case 'remove':
        return ['remove', { ...target(shown(body.id, body.version)), source: 'panel' }]
      case 'consolidate': {
        const most = RULES.maxConsolidateMatches
        if (!Array.isArray(body.ids) || body.ids.length < 1 || body.ids.length > most) throw panelError('INVALID_INPUT', `consolidate takes 1..${most} entry ids`)
        const picked = body.ids.map((x) => shown(x?.id, x?.version))
        const [first] = picked
        if (picked.some((e) => e.track !== first.track || e.scope !== first.scope || e.workspaceKey !== first.workspaceKey || e.agentKey !== first.agentKey)) {
          throw panelError('INVALID_INPUT', 'consolidate merges entries of one layer, workspace and agent')
        }
        const { match: _match, ...where } = target(first)
        return ['consolidate', { ...where, matches: picked.map((e) => e.text), text: body.text, tags: body.tags, source: 'panel' }]
      }
      case 'approved':
        return ['approve', body.id]
      case 'dismissed':
        return ['dismiss', body.id]
      default:
        throw panelError('INVALID_INPUT', `unknown op ${JSON.stringify(String(body.op))} (add, replace, remove, consolidate, approved, dismissed)`)
    }
  }

  /** A preview (no `digest`): the payload the change would ask for; else the write, bound to that digest. */
  async function write(body) {
    const live = typeof body.session === 'string' && body.session !== '' ? sessionOf(body.session) : undefined
    if (!live) throw panelError('WRITE_REQUIRES_AGENT', 'no open session: panel writes are made on behalf of the session the page shows', 409)
    const agent = live.agent ?? { session: live.session }
    const [action, input] = change(body)
    // A dismissal changes no memory: there is nothing to preview, and the click decides it.
    if (action === 'dismiss') return { result: await provider.proposalDecide(input, 'dismissed', userWrite(agent)) }
    if (body.digest === undefined) return { preview: previewOf(provider.preview(action, input, userWrite(agent))) }
    if (typeof body.digest !== 'string') throw panelError('INVALID_INPUT', 'digest must be the string the preview returned')
    const w = userWrite(agent, undefined, body.digest)
    return { result: await (action === 'approve' ? provider.proposalDecide(input, 'approved', w) : provider[action](input, w)) }
  }

  const failure = (e) => {
    const advice = strings(language).panel.advice
    return refusal(e.code, String(e.message), e.details ?? null, advice[e.details?.reason] ?? advice[e.code] ?? null)
  }
  /** A failed route's status and body: a protocol error as itself; anything else is a bug (500), with no protocol code to give. */
  const answer = (e) => {
    if (!isMemoryError(e)) return [500, refusal(null, `internal error: ${e?.message ?? String(e)}`, null)]
    return [e.status ?? (e.code === 'WRITE_DENIED' ? 403 : 400), failure(e)]
  }

  const read = (fn) => (req, res) => {
    if (!readable(req, res, trustedHosts())) return
    try {
      send(req, res, 200, fn(new URL(req.url ?? '/', 'http://localhost').searchParams))
    } catch (e) {
      send(req, res, ...answer(e))
    }
  }

  return [
    {
      kind: 'exact',
      path: '/api/memento/panel',
      handler: read(() => ({ language, labels: strings(language).panel, token: mint(), layers: LAYERS, pageSize: Math.min(PAGE_DEFAULT, config.panelEntriesLimit) })),
    },
    { kind: 'exact', path: '/api/memento/entries', handler: read(entries) },
    {
      kind: 'exact',
      path: '/api/memento/audit',
      handler: read((q) => {
        const limit = positive(q.get('limit'))
        return { rows: service.auditList(limit !== null ? Math.min(limit, PANEL_AUDIT_CEILING) : config.panelAuditLimit), language }
      }),
    },
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
    // The panel's browser modules (client/client.js imports them): a prefix, answered only for CLIENT_MODULES.
    { kind: 'prefix', path: CLIENT_ROUTE, handler: (req, res) => clientModule(req, res, trustedHosts()) },
    {
      kind: 'exact',
      path: '/api/memento/write',
      async handler(req, res) {
        if (req.method !== 'POST') {
          if (!isTrustedApiRequest(req, trustedHosts())) {
            res.statusCode = 403
            res.end('forbidden')
            return
          }
          send(req, res, 405, refusal('INVALID_INPUT', `${req.method} is not allowed: writes are POST only`, { method: req.method }), { allow: 'POST' })
          return
        }
        if (!isSameOriginWrite(req, trustedHosts())) {
          res.statusCode = 403
          res.end('forbidden')
          return
        }
        if (!tokenOk(req.headers['x-memento-token'])) {
          send(req, res, ...answer(memoryError('WRITE_DENIED', 'missing or invalid page token: reload the page', PAGE_TOKEN)))
          return
        }
        try {
          send(req, res, 200, { ok: true, ...(await write(await readJson(req))) })
        } catch (e) {
          send(req, res, ...answer(e))
        }
      },
    },
  ]
}
