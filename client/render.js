// Everything the drawer draws, from the panel's state (state.js) into its DOM: the frame, the
// budgets, filters and entries, the side panes, the error banner and the confirmation of a
// change. Every stored string goes through `esc`; the labels are the server's (state `L`).

const COLLAPSE_CHARS = 320
const COLLAPSE_LINES = 6

export const esc = (s) =>
  String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])
export const fill = (s, vars) => String(s).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? vars[k] : m))
export const time = (ms) => {
  try {
    return new Date(ms).toLocaleString(undefined, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
  } catch (e) {
    return String(ms)
  }
}

/** The drawer's frame, drawn once per language so typing keeps focus (events.js listens on the root). */
export function skeleton(p) {
  const { L } = p
  p.root.innerHTML =
    `<button class="mm-open" type="button" data-act="toggle" aria-expanded="false">${esc(L.open)}</button>` +
    `<aside class="mm-drawer" role="dialog" aria-label="${esc(L.title)}" hidden>` +
    `<header class="mm-head"><div class="mm-bar"><span class="mm-title">${esc(L.title)}</span><span class="mm-count"></span><span class="mm-grow"></span>` +
    `<button class="mm-btn" type="button" data-act="refresh">${esc(L.refresh)}</button><button class="mm-btn mm-x" type="button" data-act="close" aria-label="${esc(L.close)}" title="${esc(L.close)}">×</button></div>` +
    `<div class="mm-budgets"></div>` +
    `<nav class="mm-tabs" role="tablist">${['entries', 'proposals', 'audit', 'health', 'sessions'].map((t) => `<button class="mm-tab" type="button" role="tab" data-act="tab" data-tab="${t}" aria-selected="${t === 'entries'}">${esc(L.tabs[t])}</button>`).join('')}</nav></header>` +
    `<div class="mm-scroll">` +
    `<div class="mm-banner" hidden></div>` +
    `<section data-pane="entries"><div class="mm-tools"><input class="mm-search" type="search" placeholder="${esc(L.search)}" aria-label="${esc(L.search)}">` +
    `<select class="mm-select" data-filter="layer"></select><select class="mm-select" data-filter="workspace"></select><select class="mm-select" data-filter="agent"></select>` +
    `<button class="mm-btn" type="button" data-act="add">${esc(L.add)}</button></div>` +
    `<div class="mm-adding"></div><div class="mm-list"></div><div class="mm-picker" hidden></div></section>` +
    `<section data-pane="proposals" hidden></section><section data-pane="audit" hidden></section><section data-pane="health" hidden></section><section data-pane="sessions" hidden></section></div>` +
    `<div class="mm-modal" hidden></div></aside>`
}

export function renderBudgets(p) {
  const { L, st, $ } = p
  const d = st.data
  if (!d) return
  const ws = d.session && d.session.workspaceKey
  const rows = d.budgets
    .filter((b) => ws || b.scope !== 'workspace')
    .map((b) => {
      const pct = b.limit > 0 ? Math.min(100, Math.round((b.used / b.limit) * 100)) : 0
      return (
        `<div class="mm-budget" data-layer="${esc(b.track + '/' + b.scope)}"><div class="mm-budget-row"><span>${esc(layerName(L, b))}</span><span>${esc(b.used)}/${esc(b.limit)}</span></div>` +
        `<div class="mm-meter" role="meter" aria-valuemin="0" aria-valuemax="${esc(b.limit)}" aria-valuenow="${esc(b.used)}"><i class="${pct >= 100 ? 'mm-full' : pct >= 85 ? 'mm-high' : ''}" style="width:${pct}%"></i></div></div>`
      )
    })
  const who = d.session && d.session.agentKey ? ` · ${fill(L.agent, { key: d.session.agentKey })}` : ''
  $('.mm-budgets').innerHTML =
    `<div class="mm-budgets-title">${esc(ws ? fill(L.budgetsFor, { ws }) + who : ws === '' ? fill(L.budgetsFor, { ws: L.noWorkspace }) + who : L.budgetsGlobal)}</div>${rows.join('')}`
}

export function renderFilters(p) {
  const { L, st, $, root, LAYERS } = p
  const d = st.data
  const keep = {}
  for (const sel of root.querySelectorAll('[data-filter]')) keep[sel.dataset.filter] = sel.value
  const set = (name, options) => {
    const sel = $(`[data-filter="${name}"]`)
    sel.innerHTML = options.map(([v, label]) => `<option value="${esc(v)}">${esc(label)}</option>`).join('')
    sel.value = options.some(([v]) => v === keep[name]) ? keep[name] : ''
  }
  const own = d.session && d.session.workspaceKey
  set('layer', [['', L.allLayers]].concat(LAYERS.map((k) => [k, L.layers[k]])))
  set(
    'workspace',
    [
      ['', L.allWorkspaces],
      ['-', L.globalOnly],
    ].concat(
      own ? [[own, `${L.thisWorkspace}: ${own}`]] : [],
      d.workspaces.filter((w) => w.key !== own).map((w) => [w.key, `${w.key} (${w.count})`]),
    ),
  )
  set(
    'agent',
    [
      ['', L.allAgents],
      ['-', L.sharedAgent],
    ].concat(d.agents.filter((a) => a.key !== '').map((a) => [a.key, `${a.key} (${a.count})`])),
  )
}

function entryHtml(p, e) {
  const { L, st } = p
  const long = e.text.length > COLLAPSE_CHARS || e.text.split('\n').length > COLLAPSE_LINES
  const open = st.expanded.has(e.id)
  if (st.editing === e.id) {
    return (
      `<article class="mm-entry" data-id="${esc(e.id)}"><div class="mm-main mm-form"><textarea class="mm-input" data-field="text" aria-label="${esc(L.text)}">${esc(e.text)}</textarea>` +
      `<input class="mm-input" data-field="tags" aria-label="${esc(L.tags)}" placeholder="${esc(L.tags)}" value="${esc(e.tags.join(', '))}">` +
      `<div class="mm-row"><button class="mm-btn" type="button" data-act="cancel-edit">${esc(L.cancel)}</button><button class="mm-btn mm-primary" type="button" data-act="review-edit" data-id="${esc(e.id)}">${esc(L.save)}</button></div></div></article>`
    )
  }
  const meta = [e.source, e.agentKey ? fill(L.agent, { key: e.agentKey }) : L.shared, time(e.updatedAt)]
  if (e.recallCount > 0) meta.push(fill(L.recalled, { n: e.recallCount }))
  return (
    `<article class="mm-entry${st.picked.has(e.id) ? ' mm-picked' : ''}" data-id="${esc(e.id)}">` +
    `<label class="mm-check" title="${esc(L.select)}"><input type="checkbox" data-act="pick" data-id="${esc(e.id)}" aria-label="${esc(L.select)}"${st.picked.has(e.id) ? ' checked' : ''}></label>` +
    `<div class="mm-main"><div class="mm-text${long && !open ? ' mm-collapsed' : ''}">${esc(e.text)}</div>` +
    (long
      ? `<button class="mm-link" type="button" data-act="expand" data-id="${esc(e.id)}" aria-expanded="${open}">${esc(open ? L.showLess : L.showMore)}</button>`
      : '') +
    (e.tags.length ? `<div class="mm-tags">${e.tags.map((t) => `<span class="mm-tag">#${esc(t)}</span>`).join('')}</div>` : '') +
    `<div class="mm-foot"><div class="mm-meta">${meta.map(esc).join(' · ')}</div>` +
    `<div class="mm-actions"><button class="mm-btn" type="button" data-act="history" data-id="${esc(e.id)}">${esc(L.history)}</button><button class="mm-btn" type="button" data-act="edit" data-id="${esc(e.id)}">${esc(L.edit)}</button><button class="mm-btn mm-danger" type="button" data-act="remove" data-id="${esc(e.id)}">${esc(L.remove)}</button></div></div></div></article>`
  )
}

export function renderEntries(p) {
  const { L, st, $ } = p
  const d = st.data
  if (!d) return
  $('.mm-count').textContent = d.total === 1 ? L.totalOne : fill(L.total, { n: d.total })
  const own = d.session && d.session.workspaceKey
  let html = ''
  let layer = null
  let ws = null
  for (const e of st.entries) {
    const k = `${e.track}/${e.scope}`
    if (k !== layer) {
      layer = k
      ws = null
      html += `<h3 class="mm-layer" data-layer="${esc(k)}">${esc(L.layers[k])}</h3>`
    }
    if (e.scope === 'workspace' && e.workspaceKey !== ws) {
      ws = e.workspaceKey
      html += `<div class="mm-ws" data-workspace="${esc(ws)}">📁 <b>${esc(ws || L.noWorkspace)}</b>${ws === own ? ` · ${esc(L.thisWorkspace)}` : ''}</div>`
    }
    html += entryHtml(p, e)
  }
  if (!st.entries.length) html = `<p class="mm-note">${esc($('.mm-search').value.trim() ? L.noMatch : L.none)}</p>`
  else html += `<p class="mm-note" data-showing>${esc(fill(L.showing, { shown: st.entries.length, total: d.total }))}</p>`
  if (st.entries.length < d.total) html += `<button class="mm-btn mm-more" type="button" data-act="more">${esc(L.more)}</button>`
  if (d.capped) html += `<p class="mm-note">${esc(L.capped)}</p>`
  $('.mm-list').innerHTML = html
  const picker = $('.mm-picker')
  picker.hidden = st.picked.size === 0
  picker.innerHTML = `<span class="mm-grow">${esc(fill(L.selected, { n: st.picked.size }))}</span><button class="mm-btn" type="button" data-act="unpick">${esc(L.clearSelection)}</button><button class="mm-btn mm-primary" type="button" data-act="review-consolidate"${st.picked.size < 2 ? ' disabled' : ''}>${esc(L.consolidate)}</button>`
}

export function renderAdding(p) {
  const { L, st, $, LAYERS } = p
  const box = $('.mm-adding')
  if (!st.adding) {
    box.innerHTML = ''
    return
  }
  box.innerHTML =
    `<div class="mm-entry"><div class="mm-main mm-form"><select class="mm-select" data-field="layer" aria-label="${esc(L.layer)}">${LAYERS.map((k) => `<option value="${esc(k)}"${k === 'user/workspace' ? ' selected' : ''}>${esc(L.layers[k])}</option>`).join('')}</select>` +
    `<textarea class="mm-input" data-field="text" aria-label="${esc(L.text)}" placeholder="${esc(L.text)}"></textarea><input class="mm-input" data-field="tags" aria-label="${esc(L.tags)}" placeholder="${esc(L.tags)}">` +
    `<div class="mm-row"><button class="mm-btn" type="button" data-act="cancel-add">${esc(L.cancel)}</button><button class="mm-btn mm-primary" type="button" data-act="review-add">${esc(L.save)}</button></div></div></div>`
}

export function renderProposals(p) {
  const { L, st, $ } = p
  const pane = $('[data-pane="proposals"]')
  $('[data-tab="proposals"]').textContent = st.proposals.length ? `${L.tabs.proposals} (${st.proposals.length})` : L.tabs.proposals
  pane.innerHTML = st.proposals.length
    ? st.proposals
        .map(
          (x) =>
            `<div class="mm-proposal" data-id="${esc(x.id)}"><div class="mm-meta">${esc(layerName(L, x))}${x.workspaceKey ? ' · ' + esc(x.workspaceKey) : ''} · ${esc(x.kind)} · ${esc(time(x.createdAt))}</div><div class="mm-text">${esc(x.text)}</div>` +
            `<div class="mm-row"><button class="mm-btn" type="button" data-act="review-proposal" data-decision="dismissed" data-id="${esc(x.id)}">${esc(L.dismiss)}</button><button class="mm-btn mm-primary" type="button" data-act="review-proposal" data-decision="approved" data-id="${esc(x.id)}">${esc(L.approve)}</button></div></div>`,
        )
        .join('')
    : `<p class="mm-note">${esc(L.noProposals)}</p>`
}

/**
 * The audit tail, newest first. A landed change the page's session can undo has an Undo (its
 * confirmation shows the whole inverse change); one it cannot undo now says why on its disabled
 * button. A row naming an entry opens that entry's history.
 */
export function renderAudit(p) {
  const { L, st, $ } = p
  const actions = (r) =>
    r.undo === undefined
      ? ''
      : `<div class="mm-row mm-audit-acts">${r.entryId ? `<button class="mm-btn" type="button" data-act="history" data-seq="${esc(r.seq)}">${esc(L.history)}</button>` : ''}` +
        `<button class="mm-btn" type="button" data-act="undo" data-seq="${esc(r.seq)}"${r.undo ? '' : ` disabled title="${esc(r.undoWhy)}"`}>${esc(L.undo)}</button></div>`
  $('[data-pane="audit"]').innerHTML = st.audit.length
    ? st.audit
        .map(
          (r) =>
            `<div class="mm-audit" data-seq="${esc(r.seq)}"><time>${esc(time(r.ts))}</time><div><span class="mm-seq">#${esc(r.seq)}</span> <b>${esc(r.action)}</b> ${esc(r.track ? r.track + '/' + r.scope : '')} ${esc(r.outcome || '')}${r.source ? ' (' + esc(r.source) + ')' : ''}${r.text ? `<q>${esc(r.text.length > 400 ? r.text.slice(0, 400) + '…' : r.text)}</q>` : ''}${actions(r)}</div></div>`,
        )
        .join('')
    : `<p class="mm-note">${esc(L.noAudit)}</p>`
}

/** The health check: each finding, the entries it is about, and a button that reviews its fix. */
export function renderHealth(p) {
  const { L, st, $ } = p
  const h = st.health
  const pane = $('[data-pane="health"]')
  if (!h) return
  const H = L.health
  $('[data-tab="health"]').textContent = h.findings.length ? `${L.tabs.health} (${h.findings.length})` : L.tabs.health
  pane.innerHTML = !h.findings.length
    ? `<p class="mm-note">${esc(H.none)}</p>`
    : `<p class="mm-note">${esc(fill(H.checked, { n: h.findings.length, checked: h.checked, days: h.staleDays }))}</p>` +
      h.findings
        .map(
          (f) =>
            `<div class="mm-finding" data-finding="${esc(f.id)}"><div class="mm-meta"><b>${esc(H.kind[f.kind] || f.kind)}</b> · ${esc(where(L, f))}</div><div>${esc(f.detail)}</div>` +
            `<ul>${f.entries
              .slice(0, 5)
              .map((e) => `<li>${esc(e.text)}</li>`)
              .join('')}${f.entries.length > 5 ? `<li class="mm-meta">${esc(fill(H.more, { n: f.entries.length - 5 }))}</li>` : ''}</ul>` +
            (f.fix
              ? `<div class="mm-row"><span class="mm-meta">${esc(fill(H.frees, { n: f.fix.frees }))} · ${esc(f.fix.why)}</span><span class="mm-grow"></span><button class="mm-btn mm-primary" type="button" data-act="review-fix" data-finding="${esc(f.id)}">${esc(H.fix[f.fix.action])}</button></div>`
              : '') +
            `</div>`,
        )
        .join('')
}

export function showError(p, err) {
  const { L, st, $ } = p
  st.error = err
  const b = $('.mm-banner')
  b.hidden = !err
  if (err)
    b.innerHTML = `<b>${esc(err.code || 'HTTP')}</b>${esc(err.message || '')}${err.advice || (L.advice && L.advice[err.code]) ? `<small>${esc(err.advice || L.advice[err.code])}</small>` : ''}`
}

/** A layer's name in the page's language. */
export const layerName = (L, e) => L.layers[`${e.track}/${e.scope}`] || `${e.track}/${e.scope}`
export const where = (L, e) =>
  `${layerName(L, e)}${e.scope === 'workspace' ? ' · ' + (e.workspaceKey || L.noWorkspace) : ''}${e.agentKey ? ' · ' + fill(L.agent, { key: e.agentKey }) : ''}`
export const block = (label, text, gone) =>
  `<div class="mm-label">${esc(label)}</div><pre class="mm-full${gone ? ' mm-gone' : ''}">${esc(text)}</pre>`
/** Every field an entry of a change lands with: layer, workspace, agent, source, tags. */
export const fields = (L, e) =>
  `${where(L, e)}${e.agentKey ? '' : ' · ' + L.shared} · ${fill(L.sourceIs, { source: e.source })} · ${e.tags.length ? fill(L.tagsAre, { tags: e.tags.join(', ') }) : L.noTags}`
export const entryBlock = (L, label, e, gone) =>
  `<div class="mm-label">${esc(label)}</div><div class="mm-meta">${esc(fields(L, e))}</div><pre class="mm-full${gone ? ' mm-gone' : ''}">${esc(e.text)}</pre>`
/** The change the server planned (the payload its gate will see), entry by entry. */
export function changeHtml(L, op, plan, editable) {
  const b = plan.before
  const a = plan.after
  let html = b.map((e) => entryBlock(L, op === 'replace' ? L.from : L.removedText, e, op !== 'replace')).join('')
  if (editable)
    html += `<div class="mm-label">${esc(L.newText)}</div><div class="mm-meta">${esc(fields(L, a[0]))}</div><textarea class="mm-input" data-field="merged" aria-label="${esc(L.newText)}">${esc(a[0].text)}</textarea>`
  else html += a.map((e) => entryBlock(L, op === 'replace' ? L.to : L.newText, e)).join('')
  if (op === 'replace' && b[0].tags.join('\u0000') !== a[0].tags.join('\u0000'))
    html += block(L.tagsChange, `${b[0].tags.join(', ') || L.noTags} → ${a[0].tags.join(', ') || L.noTags}`)
  // What the new text is like among the stored entries: the approver decides.
  const alike = (plan.similar || [])
    .map(
      (x) =>
        `<div class="mm-similar">≈ ${esc(L.similar[x.relation] || x.relation)} (${esc(x.score.toFixed(2))}, ${esc(x.reason)})<q>${esc(x.text)}</q></div>`,
    )
    .join('')
  const oneFact = (plan.similar || []).some((x) => x.relation !== 'related')
  return (
    html +
    alike +
    (oneFact ? `<div class="mm-meta">${esc(L.similarAdvice)}</div>` : '') +
    plan.warnings.map((w) => `<div class="mm-warning">${esc(w)}</div>`).join('')
  )
}

/**
 * The confirmation: the complete change, then one click of consent. An edited text is a new
 * change: events.js then relabels the button, which reviews it before anything is written.
 */
export function showConfirm(p, op, html, body, preview) {
  const { L, st, $ } = p
  st.confirm = { body: Object.assign({ op }, body), preview }
  const m = $('.mm-modal')
  m.innerHTML =
    `<div class="mm-dialog" role="alertdialog" aria-modal="true" aria-label="${esc(L.confirmTitle[op])}"><h3>${esc(L.confirmTitle[op])}</h3>${html}<p class="mm-consent">${esc(L.consent)}</p>` +
    `<div class="mm-row"><button class="mm-btn" type="button" data-act="cancel-confirm">${esc(L.cancel)}</button><button class="mm-btn mm-primary" type="button" data-act="do-confirm">${esc(L.confirm)}</button></div></div>`
  m.hidden = false
  m.querySelector('[data-act="do-confirm"]').focus()
}
/** A dialog that only shows (an entry's history): one Close, and nothing to confirm. */
export function showDialog(p, title, html) {
  const { L, st, $ } = p
  st.confirm = null
  st.dialog = true
  const m = $('.mm-modal')
  m.innerHTML =
    `<div class="mm-dialog" role="dialog" aria-modal="true" aria-label="${esc(title)}"><h3>${esc(title)}</h3>${html}` +
    `<div class="mm-row"><button class="mm-btn" type="button" data-act="cancel-confirm">${esc(L.close)}</button></div></div>`
  m.hidden = false
  m.querySelector('[data-act="cancel-confirm"]').focus()
}
export function closeConfirm(p) {
  const { st, $ } = p
  st.confirm = null
  st.dialog = false
  const m = $('.mm-modal')
  if (m) {
    m.hidden = true
    m.innerHTML = ''
  }
}
