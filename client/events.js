// What the user does in the drawer: clicks (one delegated listener, by `data-act`), typing in the
// search box and the confirmation, the filters, Escape. Every change is first reviewed: the
// server plans it, the drawer shows that plan, and only the confirming click writes it, naming
// the plan's digest.
import * as api from './api.js'
import { revertHtml, showHistory } from './ledger.js'
import { block, changeHtml, closeConfirm, esc, layerName, renderAdding, renderEntries, showConfirm, showError } from './render.js'
import { byId, tagsOf } from './state.js'
import { loadEntries, loadHealth, loadSessions, reload, setOpen } from './sync.js'

/** Ask the server what `op` would change, and show exactly that for confirmation. */
async function review(p, op, body) {
  try {
    const { preview } = await api.write(p, Object.assign({ op }, body))
    showError(p, null)
    const html = op === 'revert' ? revertHtml(p.L, preview) : changeHtml(p.L, op, preview, op === 'consolidate')
    showConfirm(p, op, html, body, preview)
  } catch (e) {
    showError(p, e)
  }
}
async function commit(p) {
  const { st } = p
  const c = st.confirm
  if (!c) return
  closeConfirm(p)
  try {
    // The write names the change the user saw; the server refuses any other.
    await api.write(p, Object.assign({}, c.body, c.preview ? { digest: c.preview.digest } : {}))
    showError(p, null)
    st.editing = null
    st.adding = false
    if (c.body.op === 'consolidate' || c.body.op === 'remove' || c.body.op === 'revert') st.picked.clear()
    renderAdding(p)
  } catch (e) {
    showError(p, e)
  }
  await reload(p)
}

/** `data-act` → what it does, given the panel and the element clicked. */
const actions = {
  toggle: (p) => setOpen(p, !p.st.open),
  close: (p) => setOpen(p, false),
  refresh: (p) => reload(p),
  tab: (p, el) => {
    const { st, root } = p
    st.tab = el.dataset.tab
    for (const t of root.querySelectorAll('.mm-tab')) t.setAttribute('aria-selected', String(t.dataset.tab === st.tab))
    for (const pane of root.querySelectorAll('[data-pane]')) pane.hidden = pane.dataset.pane !== st.tab
    if (st.tab === 'health') return loadHealth(p)
    if (st.tab === 'sessions') return loadSessions(p)
  },
  // An entry's versions (an entry's own button: its id; an audit row's: its seq), in a dialog that only shows.
  history: async (p, el) => {
    const q = new URLSearchParams(el.dataset.seq ? { seq: el.dataset.seq } : { id: el.dataset.id })
    try {
      const { history } = await api.history(q)
      showError(p, null)
      showHistory(p, history)
    } catch (e) {
      showError(p, e)
    }
  },
  // Undo a landed change: the server plans the whole inverse change, the user confirms exactly that.
  undo: (p, el) => review(p, 'revert', { seq: Number(el.dataset.seq) }),
  'pick-session': (p, el) => {
    p.st.sessionPick = el.dataset.id
    return loadSessions(p)
  },
  'review-fix': (p, el) => {
    const { st } = p
    const f = st.health && st.health.findings.find((x) => x.id === el.dataset.finding)
    if (!f || !f.fix) return
    const version = (id) => ({ id, version: f.entries.find((e) => e.id === id).version })
    if (f.fix.action === 'remove') return review(p, 'remove', version(f.fix.ids[0]))
    return review(p, 'consolidate', { ids: f.fix.ids.map(version), text: f.fix.text, tags: f.fix.tags })
  },
  more: (p) => loadEntries(p, true),
  expand: (p, el) => {
    const { st } = p
    const id = el.dataset.id
    if (st.expanded.has(id)) st.expanded.delete(id)
    else st.expanded.add(id)
    renderEntries(p)
  },
  pick: (p, el) => {
    const { st } = p
    const e = byId(p, el.dataset.id)
    if (!e) return
    if (el.checked) {
      const first = st.picked.values().next().value
      if (
        first &&
        (first.track !== e.track || first.scope !== e.scope || first.workspaceKey !== e.workspaceKey || first.agentKey !== e.agentKey)
      ) {
        el.checked = false
        return showError(p, { code: 'INVALID_INPUT', message: p.L.consolidateSameLayer })
      }
      st.picked.set(e.id, e)
    } else st.picked.delete(e.id)
    renderEntries(p)
  },
  unpick: (p) => {
    p.st.picked.clear()
    renderEntries(p)
  },
  edit: (p, el) => {
    const { st } = p
    st.editing = el.dataset.id
    renderEntries(p)
    const t = p.$(`[data-id="${CSS.escape(st.editing)}"] textarea`)
    if (t) t.focus()
  },
  'cancel-edit': (p) => {
    p.st.editing = null
    renderEntries(p)
  },
  'review-edit': (p, el) => {
    const e = byId(p, el.dataset.id)
    const card = el.closest('.mm-entry')
    const text = card.querySelector('[data-field="text"]').value
    const tags = tagsOf(card.querySelector('[data-field="tags"]').value)
    return review(p, 'replace', { id: e.id, version: e.version, text, tags })
  },
  remove: (p, el) => {
    const e = byId(p, el.dataset.id)
    return review(p, 'remove', { id: e.id, version: e.version })
  },
  add: (p) => {
    const { st } = p
    st.adding = !st.adding
    renderAdding(p)
    if (st.adding) p.$('.mm-adding textarea').focus()
  },
  'cancel-add': (p) => {
    p.st.adding = false
    renderAdding(p)
  },
  'review-add': (p) => {
    const box = p.$('.mm-adding')
    const [track, scope] = box.querySelector('[data-field="layer"]').value.split('/')
    const text = box.querySelector('[data-field="text"]').value
    const tags = tagsOf(box.querySelector('[data-field="tags"]').value)
    return review(p, 'add', { track, scope, text, tags })
  },
  'review-consolidate': (p) => {
    const picked = [...p.st.picked.values()]
    if (picked.length < 2) return
    return review(p, 'consolidate', {
      ids: picked.map((e) => ({ id: e.id, version: e.version })),
      text: picked.map((e) => e.text).join('\n'),
    })
  },
  'review-proposal': (p, el) => {
    const { L, st } = p
    const x = st.proposals.find((pr) => pr.id === el.dataset.id)
    if (!x) return
    const op = el.dataset.decision
    // A dismissal changes no memory: its confirmation shows the proposal itself.
    if (op === 'approved') return review(p, op, { id: x.id })
    showConfirm(
      p,
      op,
      `<div class="mm-meta">${esc(layerName(L, x))}${x.workspaceKey ? ' · ' + esc(x.workspaceKey) : ''}</div>${block(L.text, x.text, true)}`,
      { id: x.id },
    )
  },
  'cancel-confirm': (p) => closeConfirm(p),
  'do-confirm': (p) => {
    // A new text typed into the confirmation is a new change: show it before it is written.
    const merged = p.root.querySelector('.mm-modal [data-field="merged"]')
    const c = p.st.confirm
    if (merged && c && merged.value !== c.preview.after[0].text) {
      const { op, ...body } = c.body
      return review(p, op, Object.assign(body, { text: merged.value }))
    }
    return commit(p)
  },
}

/** Listen to the drawer and the page; returns what stops listening. */
export function listen(p) {
  const { root, st } = p
  const onClick = (ev) => {
    const el = ev.target.closest('[data-act]')
    if (!el || !root.contains(el) || !actions[el.dataset.act]) return
    if (el.type === 'checkbox') {
      actions[el.dataset.act](p, el)
      return
    }
    ev.preventDefault()
    actions[el.dataset.act](p, el)
  }
  const onInput = (ev) => {
    const el = ev.target
    if (el.matches('.mm-search')) {
      clearTimeout(p.debounce)
      p.debounce = setTimeout(() => loadEntries(p, false), 250)
    } else if (el.matches('.mm-modal [data-field="merged"]') && st.confirm) {
      // An edited text is a new change: the button then reviews it before anything is written.
      const button = p.$('.mm-modal [data-act="do-confirm"]')
      if (button) button.textContent = el.value === st.confirm.preview.after[0].text ? p.L.confirm : p.L.save
    }
  }
  const onChange = (ev) => {
    if (ev.target.matches('[data-filter]')) loadEntries(p, false)
  }
  const onKey = (ev) => {
    // Escape inside the drawer (or with nothing focused) is ours; elsewhere dsh keeps it.
    if (ev.key !== 'Escape' || !st.open || !(root.contains(ev.target) || ev.target === document.body)) return
    ev.stopPropagation()
    if (st.confirm || st.dialog) closeConfirm(p)
    else setOpen(p, false)
  }
  root.addEventListener('click', onClick)
  root.addEventListener('input', onInput)
  root.addEventListener('change', onChange)
  document.addEventListener('keydown', onKey, true)
  return () => {
    root.removeEventListener('click', onClick)
    root.removeEventListener('input', onInput)
    root.removeEventListener('change', onChange)
    document.removeEventListener('keydown', onKey, true)
  }
}
