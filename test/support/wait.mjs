// Polling for tests that wait on another process, a browser or a file: one loop for both trees
// (test/ and e2e/).

/**
 * Call `fn` every `every` ms until it returns a truthy value (returned), or throw after `ms`.
 * @template T
 * @param {() => T | Promise<T>} fn
 * @param {string} what what is awaited, for the timeout's message
 */
export async function waitFor(fn, what, ms = 15_000, every = 50) {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, every))
  }
}
