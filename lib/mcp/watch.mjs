// Change notifications: while a client is subscribed to a resource, the server polls the store's
// audit head (one row; every change of memory, by any process, appends a row). When the head
// moved, it renders the subscribed resources again and sends `notifications/resources/updated`
// for each whose text changed (a row that changed nothing the resource shows sends nothing).

/** How often a subscribed server looks at the audit head. */
export const POLL_MS = 1000

/**
 * Subscriptions of one server. The timer runs only while something is subscribed, and never
 * keeps the process alive.
 * @param {{server: import('@modelcontextprotocol/sdk/server/index.js').Server, provider: object, resources: {current(uri: string): Promise<string>}, intervalMs?: number}} options
 */
export function watchResources({ server, provider, resources, intervalMs = POLL_MS }) {
  const seen = new Map() // subscribed uri → the text last notified about
  let head
  let timer = null
  let busy = false
  const headOf = () => provider.auditList(1)[0]?.seq ?? 0

  async function tick() {
    if (busy) return
    busy = true
    try {
      const now = headOf()
      if (now === head) return
      head = now
      for (const [uri, before] of seen) {
        const text = await resources.current(uri)
        if (text === before || !seen.has(uri)) continue
        seen.set(uri, text)
        await server.sendResourceUpdated({ uri })
      }
    } catch {
      // A busy store or a closing connection: the next tick looks again.
    } finally {
      busy = false
    }
  }

  return {
    async subscribe(uri) {
      seen.set(uri, await resources.current(uri))
      head ??= headOf()
      if (!timer) {
        timer = setInterval(tick, intervalMs)
        timer.unref()
      }
    },
    unsubscribe(uri) {
      seen.delete(uri)
      if (seen.size === 0) this.close()
    },
    close() {
      clearInterval(timer)
      timer = null
    },
  }
}
