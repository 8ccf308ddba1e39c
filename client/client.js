// dsh-memento web panel: the one file dsh web serves for this package's `./client` export
// (`/plugins/dsh-memento/client.js?rev=…`, listed in the boot graph).
//
// Why this shape: dsh serves only this file, and runs it as a classic <script> (the default
// bundle hook of @deepseek-ai/dsh-client-modules), so it can hold no static `import`. It
// registers with the host module loader as dsh requires and, in `apply`, loads the panel with a
// dynamic `import()` from the plugin's own read-only route `/api/memento/client/<name>.js`
// (lib/panel/), which serves a fixed list of files from client/ byte for byte: panel.js
// (the wiring) and the small ES modules it imports by relative path, one per job: state.js,
// api.js, render.js, ledger.js, sync.js, events.js, style.js. No bundler and no build step: the modules in
// the repository are what the browser runs. The disposer `apply` registers works at any time,
// also before the import has resolved (the panel is then never installed).
;(function () {
  'use strict'
  const ENTRY = '/api/memento/client/panel.js'
  const RETRY_MS = 3000

  function install(ctx) {
    let alive = true
    let dispose = null
    let timer = null
    // dsh web restarting or the plugin reloading: try again (a new URL, so no failed fetch is reused).
    const load = (attempt) =>
      import(attempt ? `${ENTRY}?retry=${attempt}` : ENTRY).then(
        (panel) => {
          if (alive) dispose = panel.install(ctx)
        },
        (e) => {
          if (!alive) return
          if (attempt === 0) console.warn('dsh-memento: the panel did not load, retrying', e)
          timer = setTimeout(() => load(attempt + 1), RETRY_MS)
        },
      )
    load(0)
    return () => {
      alive = false
      clearTimeout(timer)
      if (typeof dispose === 'function') dispose()
    }
  }

  if (typeof window !== 'undefined' && window.__ModuleLoader__ && typeof window.__ModuleLoader__.load === 'function') {
    window.__ModuleLoader__.load({
      id: 'dsh-memento',
      factory: () => ({
        name: 'memento-panel',
        inject: ['sessions'],
        apply(ctx) {
          if (ctx && typeof ctx.effect === 'function') ctx.effect(() => install(ctx))
          else install(ctx)
        },
      }),
    })
  }
})()
