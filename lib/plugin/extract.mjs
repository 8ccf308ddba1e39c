// Text of a session event, for history snippets and compaction summaries (§7.13). Never throws.
const blocks = (list) =>
  list
    .filter((b) => b && b.type === 'text' && typeof b.text === 'string' && b.text.length > 0)
    .map((b) => b.text)
    .join('\n')

export function extractEventText(event) {
  try {
    const data = event?.data
    if (typeof data === 'string') return data
    if (data === null || typeof data !== 'object') return ''
    if (Array.isArray(data.content)) return blocks(data.content)
    if (Array.isArray(data.summary)) return blocks(data.summary)
    if (data.message && typeof data.message === 'object') {
      if (Array.isArray(data.message.content)) return blocks(data.message.content)
      if (typeof data.message.text === 'string') return data.message.text
    }
    if (typeof data.name === 'string' && typeof data.arguments === 'string') return `${data.name} ${data.arguments}`
    if (Array.isArray(data.todos)) return data.todos.map((t) => t?.content).filter((c) => typeof c === 'string').join('\n')
    if (typeof data.text === 'string') return data.text
    return ''
  } catch {
    return ''
  }
}
