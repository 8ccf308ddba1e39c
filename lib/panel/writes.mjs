// The panel's one write route. It answers only a same-origin JSON POST carrying the page's
// token. Without a `digest` it only previews: the provider plans the change and the page shows
// that payload (every field of every entry) for confirmation; with the digest of what the user
// confirmed it writes, through the same gate as a typed `/memory` command, audited
// `(via panel, …)`, and only if the change is still exactly that one.
//
// What a text, a tag list, a layer or a proposal id must be is the provider's rule: the fields go
// to it as sent, and its coded error comes back.
import { answer, forbidden, panelError, readJson, refusal, send } from './http.mjs'
import { PAGE_TOKEN } from './tokens.mjs'
import { isSameOriginWrite, isTrustedApiRequest } from './trust.mjs'
import { previewOf } from './visible.mjs'
import { memoryError } from '../errors.mjs'
import { RULES } from '../native.mjs'

/**
 * @param deps.service     ctx.memory (the entry a request names)
 * @param deps.provider    the provider (panel writes need the user-consent transport)
 * @param deps.userWrite   (agent, signal?, digest?) → a write context bound to that transport, labelled `panel`: its gate allows only the change whose digest the user confirmed
 * @param deps.sessionOf   (sessionId) → `{agent, session}` of a live session, or undefined
 * @param deps.tokenOk     (token) → whether the page token is one this process minted
 * @param deps.trustedHosts () → the deployment's non-loopback authorities
 */
export function makeWrites({ service, provider, config, userWrite, sessionOf, tokenOk, trustedHosts }) {
  const language = config.language

  /** The entry the user saw, unchanged since: the panel targets exactly what it showed. */
  function shown(id, version) {
    const e = typeof id === 'string' ? service.entry(id) : null
    if (!e) throw panelError('ENTRY_NOT_FOUND', `no entry ${JSON.stringify(String(id))}: it was removed since the panel showed it`, 409)
    if (version !== undefined && e.version !== version)
      throw panelError('ENTRY_NOT_FOUND', `entry ${id} changed since the panel showed it (version ${version}, now ${e.version})`, 409)
    return e
  }
  // The protocol targets an entry by a unique substring within a layer: the entry's whole
  // text, in its own workspace and agent's view, names it (unless another entry contains it).
  const target = (e) => ({ track: e.track, scope: e.scope, match: e.text, workspaceKey: e.workspaceKey, agentKey: e.agentKey })

  /** The provider call a panel request names: `[action, input]` (`approve`/`dismiss`: a proposal id; `revert`: an audit seq). */
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
        if (!Array.isArray(body.ids) || body.ids.length < 1 || body.ids.length > most)
          throw panelError('INVALID_INPUT', `consolidate takes 1..${most} entry ids`)
        const picked = body.ids.map((x) => shown(x?.id, x?.version))
        const [first] = picked
        if (
          picked.some(
            (e) =>
              e.track !== first.track || e.scope !== first.scope || e.workspaceKey !== first.workspaceKey || e.agentKey !== first.agentKey,
          )
        ) {
          throw panelError('INVALID_INPUT', 'consolidate merges entries of one layer, workspace and agent')
        }
        const { match: _match, ...where } = target(first)
        return ['consolidate', { ...where, matches: picked.map((e) => e.text), text: body.text, tags: body.tags, source: 'panel' }]
      }
      case 'revert':
        return ['revert', body.seq]
      case 'approved':
        return ['approve', body.id]
      case 'dismissed':
        return ['dismiss', body.id]
      default:
        throw panelError(
          'INVALID_INPUT',
          `unknown op ${JSON.stringify(String(body.op))} (add, replace, remove, consolidate, revert, approved, dismissed)`,
        )
    }
  }

  /** A preview (no `digest`): the payload the change would ask for; else the write, bound to that digest. */
  async function write(body) {
    const live = typeof body.session === 'string' && body.session !== '' ? sessionOf(body.session) : undefined
    if (!live)
      throw panelError('WRITE_REQUIRES_AGENT', 'no open session: panel writes are made on behalf of the session the page shows', 409)
    const agent = live.agent ?? { session: live.session }
    const [action, input] = change(body)
    // A dismissal changes no memory: there is nothing to preview, and the click decides it.
    if (action === 'dismiss') return { result: await provider.proposalDecide(input, 'dismissed', userWrite(agent)) }
    if (body.digest === undefined) return { preview: previewOf(provider.preview(action, input, userWrite(agent))) }
    if (typeof body.digest !== 'string') throw panelError('INVALID_INPUT', 'digest must be the string the preview returned')
    const w = userWrite(agent, undefined, body.digest)
    return { result: await (action === 'approve' ? provider.proposalDecide(input, 'approved', w) : provider[action](input, w)) }
  }

  return {
    kind: 'exact',
    path: '/api/memento/write',
    async handler(req, res) {
      if (req.method !== 'POST') {
        if (!isTrustedApiRequest(req, trustedHosts())) {
          forbidden(res)
          return
        }
        send(req, res, 405, refusal('INVALID_INPUT', `${req.method} is not allowed: writes are POST only`, { method: req.method }), {
          allow: 'POST',
        })
        return
      }
      if (!isSameOriginWrite(req, trustedHosts())) {
        forbidden(res)
        return
      }
      if (!tokenOk(req.headers['x-memento-token'])) {
        send(req, res, ...answer(memoryError('WRITE_DENIED', 'missing or invalid page token: reload the page', PAGE_TOKEN), language))
        return
      }
      try {
        send(req, res, 200, { ok: true, ...(await write(await readJson(req))) })
      } catch (e) {
        send(req, res, ...answer(e, language))
      }
    },
  }
}
