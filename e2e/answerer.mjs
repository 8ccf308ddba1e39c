// Test answerer: the "user" approves every memory request (stands in for the web UI's dialog).
export const name = 'e2e-answerer'
export function apply(ctx) {
  ctx.on('approval/request', async (req, next) => (req.toolName === 'memory' ? 'allowed-once' : next()), { prepend: true })
}
