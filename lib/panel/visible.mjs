// What the page may show of stored strings: control and invisible characters as escapes
// (multi-line text keeps its line breaks), for a preview's entries and a health finding.
import { native } from '../native.mjs'

/** A stored string as the page may show it. */
export const visible = (s) => native.visibleLines(String(s ?? '')).join('\n')
const visibleEntry = (e) => ({
  ...e,
  text: visible(e.text),
  source: native.visibleText(e.source),
  workspaceKey: native.visibleText(e.workspaceKey),
  agentKey: native.visibleText(e.agentKey),
  tags: e.tags.map((t) => native.visibleText(t)),
})
const visibleSimilar = (x) => ({ id: x.id, text: visible(x.text), score: x.score, relation: x.relation, reason: x.reason })

/** What the confirmation shows of a payload (`reverts`: the change an undo takes back). */
export const previewOf = (p) => ({
  action: p.action,
  ...(p.reverts !== undefined ? { reverts: p.reverts } : {}),
  digest: p.digest,
  warnings: p.warnings ?? [],
  before: p.before.map(visibleEntry),
  after: p.after.map(visibleEntry),
  similar: (p.similar ?? []).map(visibleSimilar),
})

/** An entry's history as the page shows it: every version with the row that made it, and how it ended. */
export const visibleHistory = (h) => ({
  entryId: native.visibleText(h.entryId),
  complete: h.complete,
  versions: h.versions.map((v) => ({
    ...visibleEntry(v),
    action: native.visibleText(v.action),
    outcome: v.outcome === null ? null : native.visibleText(v.outcome),
    sessionId: v.sessionId === null ? null : native.visibleText(v.sessionId),
  })),
  ...(h.ended ? { ended: { ...h.ended, ...(h.ended.into ? { into: native.visibleText(h.ended.into) } : {}) } } : {}),
})

/** A recorded session as the page shows it (`id`: as the page asks for it again; `text`, when asked for one: what it was given). */
export const visibleSession = (s) => ({
  id: s.sessionId,
  sessionId: native.visibleText(s.sessionId),
  ts: s.ts,
  workspaceKey: s.workspaceKey === null ? null : native.visibleText(s.workspaceKey),
  agentKey: s.agentKey === null ? null : native.visibleText(s.agentKey),
  chars: s.chars,
  ...(s.text !== undefined ? { text: visible(s.text) } : {}),
})

/**
 * A health finding as the Health view shows it. Its fix is what the page previews through the
 * write route (entry ids and versions, the kept text): the preview then shows the whole change.
 */
export const visibleFinding = (f) => ({
  id: f.id,
  kind: f.kind,
  track: f.track,
  scope: f.scope,
  workspaceKey: native.visibleText(f.workspaceKey),
  agentKey: native.visibleText(f.agentKey),
  detail: visible(f.detail),
  entries: f.entries.map((e) => ({ id: e.id, version: e.version, text: visible(e.text) })),
  ...(f.fix
    ? {
        fix: {
          action: f.fix.action,
          why: f.fix.why,
          frees: f.fix.frees,
          ids: f.fix.entries.map((e) => e.id),
          text: f.fix.input.text,
          tags: f.fix.input.tags,
        },
      }
    : {}),
})
