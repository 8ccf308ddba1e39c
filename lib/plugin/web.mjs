// Read-only JSON routes for the web panel (§7.9). Management views never bump recall
// counters (P3). Registered as one effect so a reload never leaves a stale route.
export const PANEL_AUDIT_CEILING = 200

const positive = (v) => {
  if (v === null || !/^\d+$/.test(v)) return null
  const n = Number(v)
  return n > 0 ? n : null
}

function send(res, status, body) {
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.end(JSON.stringify(body))
}

export function makeRoutes({ service, config }) {
  const language = config.language
  const wrap = (fn) => (req, res) => {
    try {
      send(res, 200, fn(new URL(req.url ?? '/', 'http://localhost').searchParams))
    } catch (e) {
      send(res, 500, { error: String(e?.message ?? e) })
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
        return { entries: r.entries, total: r.total, truncated: r.truncated, budgets: service.budgets(workspace ? { workspaceKey: workspace } : undefined), language }
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
