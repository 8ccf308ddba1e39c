// Read-only JSON routes for the web panel (§7.9); the entries route carries the panel's labels
// (the browser script has no access to the strings table). Management views never bump recall
// counters (P3). Registered as one effect so a reload never leaves a stale route. Only the
// user's own page may read them (dsh's trusted-request rule, ./trust.mjs); they answer GET and
// HEAD, and nothing else.
import { isTrustedApiRequest } from './trust.mjs'
import { strings } from './strings.mjs'

export const PANEL_AUDIT_CEILING = 200

const positive = (v) => {
  if (v === null || !/^\d+$/.test(v)) return null
  const n = Number(v)
  return n > 0 ? n : null
}

function send(req, res, status, body) {
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body))
}

/** `trustedHosts()`: the deployment's non-loopback authorities (dsh's connection service's). */
export function makeRoutes({ service, config, trustedHosts = () => [] }) {
  const language = config.language
  const labels = strings(language).panel
  const wrap = (fn) => (req, res) => {
    // As dsh's own /api answers a foreign page: a bare 403, whatever the method.
    if (!isTrustedApiRequest(req, trustedHosts())) {
      res.statusCode = 403
      res.end('forbidden')
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD')
      send(req, res, 405, { error: `${req.method} is not allowed: these routes only read` })
      return
    }
    try {
      send(req, res, 200, fn(new URL(req.url ?? '/', 'http://localhost').searchParams))
    } catch (e) {
      send(req, res, 500, { error: String(e?.message ?? e) })
    }
  }
  return [
    {
      kind: 'exact',
      path: '/api/memento/entries',
      handler: wrap((q) => {
        const filter = {}
        for (const k of ['text', 'track', 'scope']) if (q.get(k)) filter[k] = q.get(k)
        const limit = positive(q.get('limit'))
        if (limit !== null) filter.limit = Math.min(limit, config.panelEntriesLimit)
        const r = service.query(filter, { countRecall: false })
        const workspace = q.get('workspace')
        return { entries: r.entries, total: r.total, truncated: r.truncated, budgets: service.budgets(workspace ? { workspaceKey: workspace } : undefined), language, labels }
      }),
    },
    {
      kind: 'exact',
      path: '/api/memento/audit',
      handler: wrap((q) => {
        const limit = positive(q.get('limit'))
        return { rows: service.auditList(limit !== null ? Math.min(limit, PANEL_AUDIT_CEILING) : config.panelAuditLimit), language }
      }),
    },
    {
      kind: 'exact',
      path: '/api/memento/proposals',
      handler: wrap(() => ({ proposals: service.proposalList('pending', 50), language })),
    },
  ]
}
