// The plugin's approval transports: how the provider's single `gate` reaches a decider. The
// provider decides each write's policy (writePolicy / writePolicies, from the layers it touches
// and the writer's source) and refuses `off` itself; the payload carries the decision.
// * in-turn (default, every ctx.memory caller and the `memory` tool): `ctx.approval.request`
//   with the payload's reason (the whole change), so the harness UI shows it and logs
//   approval/asked + approval/decided. The answerer claims exactly the request objects this
//   gate made, and approves those the provider decided `auto`.
// * user consent (`/memory …` typed by the user, or a confirmed click in the web panel): the
//   user's own act is the consent; refused under a session `never` policy, and a panel write
//   only when its change is the one the user confirmed (its digest), audited `(via command, …)`
//   / `(via panel, …)`. Bound to write contexts the command handler and the panel routes mint
//   themselves (a private WeakMap), so no caller can select it.

/**
 * @param approvalService () → the harness's `approval` service, or undefined (read at each write)
 * @returns {{gate, auditVia, answerer, userWrite, similarOf, shownOf}} `gate`/`auditVia` for the
 *   provider's options, `answerer` for `approval/request`, `userWrite(via)` the user-consent
 *   write contexts, `similarOf`/`shownOf` what a write's approval showed.
 */
export function makeApproval(approvalService) {
  const userWrites = new WeakMap() // write context → {via: 'command' | 'panel', digest?}
  const askFailures = new WeakMap()
  const ownRequests = new WeakMap() // approval request this gate made → the provider's policy
  const asked = new WeakMap() // write context → the payload its approval was asked with
  /** What the approval of `write` named as alike (`similar`), for the writer to show after the write. */
  const similarOf = (write) => asked.get(write)?.similar ?? []
  /** The change as the approval of `write` showed it (`reason`), for a surface with no approval to show it in. */
  const shownOf = (write) => asked.get(write)?.reason
  const sessionNever = (write) => {
    const a = approvalService()
    const session = write?.agent?.session
    if (!a || !session) return false
    try {
      const policy = typeof a.effectivePolicy === 'function' ? a.effectivePolicy(session) : (a.overrideOf?.(session) ?? a.config?.policy)
      return policy === 'never'
    } catch {
      return false
    }
  }
  /** A write context for the user's own act (`via`, also the writer's source the policy keys on); a panel write names the digest of the change the user confirmed. */
  const userWrite = (via) => (agent, signal, digest) => {
    const write = { agent, source: via, ...(signal ? { signal } : {}) }
    userWrites.set(write, { via, digest })
    return write
  }
  async function gate(payload, write) {
    if (write && typeof write === 'object') asked.set(write, payload)
    const user = userWrites.get(write)
    if (user) {
      if (sessionNever(write)) return 'rejected'
      if (user.digest !== undefined && user.digest !== payload.digest) {
        askFailures.set(write, 'the change is not the one the user confirmed')
        return 'rejected'
      }
      return 'allowed-once'
    }
    const a = approvalService()
    if (!a || typeof a.request !== 'function') {
      askFailures.set(write, 'no approval service')
      return 'unavailable'
    }
    const request = {
      agent: write.agent,
      toolName: 'memory',
      reason: payload.reason,
      ...(typeof write.callId === 'string' ? { callId: write.callId } : {}),
      ...(write.signal ? { signal: write.signal } : {}),
    }
    ownRequests.set(request, payload.policy.policy)
    try {
      return await a.request(request)
    } catch (e) {
      askFailures.set(write, String(e?.message ?? e))
      return 'unavailable'
    }
  }
  /** Who carried the approval (the provider writes the label): the transport, a session `never` policy, why asking failed. */
  function auditVia(outcome, payload, write) {
    const via = userWrites.get(write)?.via ?? 'approval'
    const failure = askFailures.get(write)
    return {
      via,
      ...(sessionNever(write) ? { decider: 'session approval policy never' } : {}),
      ...(failure ? { detail: via === 'approval' ? `approval ask failed: ${failure}` : failure } : {}),
    }
  }
  // The answerer: approves the requests this gate made for writes the provider decided
  // `auto` (its `off` never reaches a gate). Every other request, ours under `ask` included,
  // goes on to the harness's own answerers (the user).
  const answerer = async (req, next) => (ownRequests.get(req) === 'auto' ? 'allowed-once' : next())
  return { gate, auditVia, answerer, userWrite, similarOf, shownOf }
}
