// Approval reason encoding (§5.1), request ownership (§5.2) and write-policy resolution (§5.4).
export const REASON_MARKER = '[dsh-memento]'
export const TOOL_NAME = 'memory'
const REASON = /^\[dsh-memento\] ([a-z]+)(?: \((\d+) entries\))? ([a-z]+)\/([a-z-]+)(?: \[source:([^\]]*)\])?\n([\s\S]*)$/

/** `[dsh-memento] {action}[ ({n} entries)] {track}/{scope}[ [source:{source}]]\n{text}` */
export function buildReason(payload) {
  let line = `${REASON_MARKER} ${payload.action}`
  if (payload.action === 'seed' && payload.count !== undefined) line += ` (${payload.count} entries)`
  line += ` ${payload.track}/${payload.scope}`
  if (payload.source) line += ` [source:${payload.source}]`
  const warnings = Array.isArray(payload.warnings) && payload.warnings.length > 0 ? `\n\n${payload.warnings.map((w) => `⚠ ${w}`).join('\n')}` : ''
  return `${line}\n${payload.text ?? ''}${warnings}`
}

/** Inverse of buildReason; `null` when the string is not one of ours. */
export function parseReason(reason) {
  if (typeof reason !== 'string') return null
  const m = REASON.exec(reason)
  if (!m) return null
  return {
    action: m[1],
    ...(m[2] !== undefined ? { count: Number(m[2]) } : {}),
    track: m[3],
    scope: m[4],
    ...(m[5] !== undefined ? { source: m[5] } : {}),
    text: m[6],
  }
}

/** A request is ours only when it names the `memory` tool and carries our marker. */
export function isOwnRequest(req) {
  return req?.toolName === TOOL_NAME && typeof req.reason === 'string' && req.reason.startsWith(REASON_MARKER)
}

/**
 * The policy that decides a payload, and which setting it came from (B4: labels name the
 * deciding setting, not always the global one). Precedence: `source:<s>`, `track/scope`, global.
 */
export function resolvePolicy(payload, writePolicy, writePolicies = {}) {
  if (payload) {
    const sourceKey = payload.source ? `source:${payload.source}` : null
    if (sourceKey && Object.hasOwn(writePolicies, sourceKey)) return { policy: writePolicies[sourceKey], setting: `writePolicies["${sourceKey}"]` }
    const layerKey = `${payload.track}/${payload.scope}`
    if (Object.hasOwn(writePolicies, layerKey)) return { policy: writePolicies[layerKey], setting: `writePolicies["${layerKey}"]` }
  }
  return { policy: writePolicy, setting: 'writePolicy' }
}

/** `writePolicy auto` / `writePolicies["source:claude"] off` */
export function describePolicy(resolved) {
  return `${resolved.setting} ${resolved.policy}`
}
