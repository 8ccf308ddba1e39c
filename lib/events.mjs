// The text of a dsh session event, for every reader of events: the `memory_recall` tool's history
// snippets, the plugin's proposal capture and `dsh-memento digest`. Never throws.

/** Text blocks joined by newlines (blocks of another type — tool calls, images — are skipped). */
const blocks = (list) =>
  list
    .filter((b) => b && (b.type === undefined || b.type === 'text') && typeof b.text === 'string' && b.text.length > 0)
    .map((b) => b.text)
    .join('\n')

/** A text field that is either a string or a list of text blocks. */
const textOf = (v) => (typeof v === 'string' ? v : Array.isArray(v) ? blocks(v) : undefined)

/** Text of a session event, following the reference extraction order (§7.13); `''` when it has none. */
export function eventText(event) {
  try {
    const data = event?.data
    if (typeof data === 'string') return data
    if (data === null || typeof data !== 'object') return ''
    const direct = textOf(data.content) ?? textOf(data.summary)
    if (direct !== undefined) return direct
    const message = data.message && typeof data.message === 'object' ? data.message : null
    const said = message && (textOf(message.content) ?? (typeof message.text === 'string' ? message.text : undefined))
    if (typeof said === 'string') return said
    if (typeof data.name === 'string' && typeof data.arguments === 'string') return `${data.name} ${data.arguments}`
    if (Array.isArray(data.todos))
      return data.todos
        .map((t) => t?.content)
        .filter((c) => typeof c === 'string')
        .join('\n')
    if (typeof data.text === 'string') return data.text
    return ''
  } catch {
    return ''
  }
}
