// Page tokens: the panel page gets one with its labels, and a write carries it back. A token is a
// random nonce signed with a key that lives only in this process (HMAC), so only a page this
// plugin served can write, and a reload of the plugin invalidates every open page's token.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** Why a write was refused before it reached the provider: its page token (reloading the page gets a fresh one). */
export const PAGE_TOKEN = Object.freeze({ outcome: 'denied (missing or invalid page token)', reason: 'pageToken' })

/** `{mint() → token, tokenOk(token) → boolean}` over a fresh key. */
export function makePageTokens() {
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
  return { mint, tokenOk }
}
