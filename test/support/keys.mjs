// The JS reference dsh-memento's key rules, which the addon must follow on every platform: the
// workspace key of a cwd is `path.resolve(cwd)`, the agent key of a preset the trimmed preset;
// on win32, where paths are case-insensitive, both are lowercased.
import path from 'node:path'

const fold = (s) => (process.platform === 'win32' ? s.toLowerCase() : s)

export const workspaceKeyOf = (cwd) => (typeof cwd === 'string' && cwd.length > 0 ? fold(path.resolve(cwd)) : '')
export const agentKeyOf = (preset) => (typeof preset === 'string' ? fold(preset.trim()) : '')
