// Which HTTP requests may reach the panel's routes: exactly dsh's own rule for its `/api/*`
// routes, mirrored from `isTrustedApiRequest` in @deepseek-ai/dsh-client-connection
// 0.1.0-rc.8 (lib/index.js, "api-request-trust"), which that package does not export. dsh
// matches exact routes such as ours before its `/api` prefix route runs the check, so routes
// a plugin registers must apply it themselves.
//
// The Host must be loopback (localhost, [::1], 127/8) or one of the deployment's trustedHosts:
// the one header DNS rebinding cannot forge. A browser's `Sec-Fetch-Site: cross-site` is
// refused, and an Origin, when sent, must be the Host itself.

function isLoopbackHostname(hostname) {
  if (hostname === 'localhost' || hostname === '[::1]') return true
  const parts = hostname.split('.')
  return parts.length === 4 && parts[0] === '127' && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)
}

function parseAuthority(authority) {
  try {
    return new URL(`http://${authority}`)
  } catch {
    return undefined
  }
}

function canonicalAuthority(entry, entryUrl) {
  const port = entryUrl.port !== '' ? entryUrl.port : new URL(`https://${entry}`).port
  return port === '' ? entryUrl.hostname : `${entryUrl.hostname}:${port}`
}

function isTrustedAuthority(hostUrl, trustedHosts) {
  return trustedHosts.some((entry) => {
    const entryUrl = parseAuthority(entry)
    if (entryUrl === undefined) return false
    return canonicalAuthority(entry, entryUrl) === entryUrl.hostname
      ? entryUrl.hostname === hostUrl.hostname
      : entryUrl.host === hostUrl.host
  })
}

const header = (headers, name) => (typeof headers?.[name] === 'string' ? headers[name] : undefined)

/** Whether a Node HTTP request comes from the user's own dsh page (or a local non-browser client). */
export function isTrustedApiRequest(request, trustedHosts = []) {
  const host = header(request.headers, 'host')
  if (host === undefined) return false
  const hostUrl = parseAuthority(host)
  if (hostUrl === undefined) return false
  if (!isLoopbackHostname(hostUrl.hostname) && !isTrustedAuthority(hostUrl, trustedHosts)) return false
  if (header(request.headers, 'sec-fetch-site') === 'cross-site') return false
  const origin = header(request.headers, 'origin')
  if (origin === undefined) return true
  try {
    return new URL(origin).host === hostUrl.host
  } catch {
    return false
  }
}

/**
 * Whether a request may write through the panel: a trusted request (above) that is a `POST`
 * sent by a page of this very origin. A browser always sends `Origin` on a `fetch` POST, so a
 * missing one is refused, as is any `Sec-Fetch-Site` but `same-origin`, and any body but JSON
 * (a cross-origin JSON POST needs a CORS preflight, which nothing here answers).
 */
export function isSameOriginWrite(request, trustedHosts = []) {
  if (request.method !== 'POST' || !isTrustedApiRequest(request, trustedHosts)) return false
  const origin = header(request.headers, 'origin')
  if (origin === undefined) return false
  const site = header(request.headers, 'sec-fetch-site')
  if (site !== undefined && site !== 'same-origin') return false
  return /^application\/json\s*(;|$)/i.test(header(request.headers, 'content-type') ?? '')
}
