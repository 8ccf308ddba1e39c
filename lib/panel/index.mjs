// The web panel's routes (§7.9). Only the user's own page reaches them (dsh's trusted-request
// rule, ./trust.mjs). The reads (./reads.mjs) never bump recall counters; the one write route
// (./writes.mjs) previews a change, then writes exactly the change the user confirmed, carrying a
// page token (./tokens.mjs) the panel route hands the page. The panel's own browser modules
// (client/) are served as they are by one more read-only route (./client.mjs).
import { CLIENT_ROUTE, clientModule } from './client.mjs'
import { makeReads } from './reads.mjs'
import { makePageTokens } from './tokens.mjs'
import { makeWrites } from './writes.mjs'

export { CLIENT_MODULES } from './client.mjs'
export { PANEL_AUDIT_CEILING } from './reads.mjs'

/**
 * @param deps.service     ctx.memory (reads)
 * @param deps.provider    the provider (panel writes need the user-consent transport)
 * @param deps.userWrite   (agent, signal?, digest?) → a write context bound to that transport, labelled `panel`: its gate allows only the change whose digest the user confirmed
 * @param deps.sessionOf   (sessionId) → `{agent, session}` of a live session, or undefined
 * @param deps.trustedHosts () → the deployment's non-loopback authorities
 */
export function makeRoutes({ service, provider, config, userWrite, sessionOf = () => undefined, trustedHosts = () => [] }) {
  const { mint, tokenOk } = makePageTokens()
  return [
    ...makeReads({ service, config, sessionOf, mint, trustedHosts }),
    // The panel's browser modules (client/client.js imports them): a prefix, answered only for CLIENT_MODULES.
    { kind: 'prefix', path: CLIENT_ROUTE, handler: (req, res) => clientModule(req, res, trustedHosts()) },
    makeWrites({ service, provider, config, userWrite, sessionOf, tokenOk, trustedHosts }),
  ]
}
