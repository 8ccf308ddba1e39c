// The panel's own browser modules (client/), served as they are by one read-only route, from a
// fixed list of names.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { readable, refusal, send } from './http.mjs'

/**
 * The panel's ES modules: client/client.js (the one file dsh serves) imports panel.js from here,
 * and panel.js the others by relative path. Only these names are served, each byte for byte from
 * client/: a name is looked up in this list, never joined into a path.
 */
export const CLIENT_MODULES = Object.freeze([
  'panel.js',
  'state.js',
  'api.js',
  'render.js',
  'ledger.js',
  'sync.js',
  'events.js',
  'style.js',
])
export const CLIENT_ROUTE = '/api/memento/client'
const CLIENT_DIR = new URL('../../client/', import.meta.url)

/** `GET|HEAD /api/memento/client/<name>`: public static code, so no token, but only for dsh's own page like every route here. */
export function clientModule(req, res, trustedHosts) {
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
  const seen =
    typeof req.headers?.['if-none-match'] === 'string'
      ? req.headers['if-none-match'].split(',').map((t) => t.trim().replace(/^W\//, ''))
      : []
  if (seen.includes(etag) || seen.includes('*')) {
    res.statusCode = 304
    res.end()
    return
  }
  res.statusCode = 200
  res.setHeader('content-length', String(body.length))
  res.end(req.method === 'HEAD' ? undefined : body)
}
