// The plugin's JSON routes (lib/panel/), as the drawer calls them. A failure is always
// thrown as `{code, message, advice?}`: the server's protocol error, or `HTTP` for the transport.
import { session } from './state.js'

const API = '/api/memento/'

export async function call(path, init) {
  let r
  try {
    r = await fetch(API + path, Object.assign({ credentials: 'same-origin', cache: 'no-store' }, init || {}))
  } catch (e) {
    throw { code: 'HTTP', message: String((e && e.message) || e) }
  }
  let body = null
  try {
    body = await r.json()
  } catch (e) {}
  if (!r.ok) throw (body && body.error) || { code: 'HTTP', message: `HTTP ${r.status}` }
  return body
}

/** Labels, language, layers, page size and the page's write token. */
export const panel = () => call('panel')
export const entries = (q) => call(`entries?${q}`)
export const proposals = () => call('proposals')
/** The audit tail; `q` names the page's session, whose undos the rows are marked with. */
export const audit = (q) => call(`audit?${q}`)
/** An entry's versions: `q` holds its `id`, or the `seq` of a row that names it. */
export const history = (q) => call(`history?${q}`)
/** The Sessions view for the page's session (`q`; `id`: the session to show). */
export const sessions = (q) => call(`sessions?${q}`)
export const health = () => call('health')
export const version = () => call('version')

/** POST a change for the page's session (a fresh token once if the plugin was reloaded). */
export async function write(p, body) {
  const s = session(p)
  if (!s) throw { code: 'WRITE_REQUIRES_AGENT', message: p.L.needSession }
  const send = () =>
    call('write', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-memento-token': p.token },
      body: JSON.stringify(Object.assign({ session: s.id }, body)),
    })
  return send().catch(async (e) => {
    if (!e || !e.details || e.details.reason !== 'pageToken') throw e
    try {
      p.token = (await panel()).token
    } catch (e) {}
    return send()
  })
}
