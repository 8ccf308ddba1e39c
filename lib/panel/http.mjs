// What every panel route answers with: a JSON body, a coded refusal, the guard of the read-only
// routes, and the JSON body of a write.
import { isTrustedApiRequest } from './trust.mjs'
import { strings } from '../strings.mjs'
import { isMemoryError, memoryError } from '../errors.mjs'

const BODY_CEILING = 256 * 1024

export function send(req, res, status, body, headers = {}) {
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('cache-control', 'no-store')
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v)
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body))
}

/** A bare 403, as dsh's own /api answers a foreign page. */
export function forbidden(res) {
  res.statusCode = 403
  res.end('forbidden')
}

/** A protocol error the panel answers with HTTP `status`: a refusal of the request itself. */
export const panelError = (code, message, status = 400) => Object.assign(memoryError(code, message), { status })

/** The body of a refused request: the protocol error as the panel shows it (code, message, advice). */
export const refusal = (code, message, details = {}, advice = null) => ({ error: { code, message, advice, details } })

/** A failed route's status and body in `language`: a protocol error as itself; anything else is a bug (500), with no protocol code to give. */
export function answer(e, language) {
  if (!isMemoryError(e)) return [500, refusal(null, `internal error: ${e?.message ?? String(e)}`, null)]
  const advice = strings(language).panel.advice
  return [
    e.status ?? (e.code === 'WRITE_DENIED' ? 403 : 400),
    refusal(e.code, String(e.message), e.details ?? null, advice[e.details?.reason] ?? advice[e.code] ?? null),
  ]
}

/**
 * The refusals every read-only route makes, answered here: a foreign page gets a bare 403
 * whatever the method (as dsh's own /api answers it), a method other than GET/HEAD a 405.
 * True when the request may be read.
 */
export function readable(req, res, trustedHosts) {
  if (!isTrustedApiRequest(req, trustedHosts)) {
    forbidden(res)
    return false
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(req, res, 405, refusal('INVALID_INPUT', `${req.method} is not allowed: this route only reads`, { method: req.method }), {
      allow: 'GET, HEAD',
    })
    return false
  }
  return true
}

/** The request body as a JSON object, at most BODY_CEILING bytes. */
export async function readJson(req) {
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
