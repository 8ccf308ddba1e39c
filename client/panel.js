// dsh-memento web panel: a "Memory" drawer over the plugin's JSON routes (lib/panel/).
// Search, filters and paging run on the server; the drawer shows the store by the four
// layers with the session's workspace first and its budgets pinned at the top. Edits go
// through POST /api/memento/write with the page's token, each after a confirmation that shows
// the complete change: the click is the user's own consent, audited `(via panel, …)`.
// Labels come from the server before anything is drawn. Colours, type and light/dark are
// dsh web's own `--dsw-*` tokens.
//
// This module wires the others: state.js (what the drawer holds), api.js (the routes),
// render.js (the DOM), ledger.js (history, undo and sessions), sync.js (loading and polling),
// events.js (what the user does) and style.js (the stylesheet). client.js, the file dsh serves, imports it.
import { listen } from './events.js'
import { createState } from './state.js'
import { STYLE } from './style.js'
import { boot, sessionChanged } from './sync.js'

/** Put the drawer on the page; returns what takes it away again. */
export function install(ctx) {
  if (typeof document === 'undefined' || document.getElementById('dsh-memento-panel')) return () => {}
  const p = createState(ctx)
  p.style.textContent = STYLE
  const unlisten = listen(p)
  const list = p.sessions && p.sessions.list
  const unsubscribe = list && typeof list.subscribe === 'function' ? list.subscribe(() => sessionChanged(p)) : null
  boot(p)
  return () => {
    p.alive = false
    clearTimeout(p.timer)
    clearTimeout(p.debounce)
    clearTimeout(p.retry)
    unlisten()
    if (typeof unsubscribe === 'function') unsubscribe()
    p.root.remove()
    p.style.remove()
  }
}
