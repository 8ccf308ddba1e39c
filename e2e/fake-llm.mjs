// A scripted DeepSeek/OpenAI chat-completions endpoint on loopback (SSE), for end-to-end turns
// without a key or network. Every request body is appended to $FAKE_LLM_LOG (JSONL).
// Script: $FAKE_LLM_TOOL_ARGS is the JSON arguments of one `memory` tool call the model makes
// on the first request that offers the tool; once a tool result is in the history the model
// answers "ok". Tool-less requests (the title generator) get a plain title.
import { createServer } from 'node:http'
import { appendFileSync, writeFileSync } from 'node:fs'

const port = Number(process.env.FAKE_LLM_PORT ?? 18931)
const log = process.env.FAKE_LLM_LOG ?? 'fake-llm.jsonl'
writeFileSync(log, '')

const base = { id: 'fake', object: 'chat.completion.chunk', created: 0, model: 'fake' }
const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }
const sse = (res, chunks) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`)
  res.end('data: [DONE]\n\n')
}
const text = (t) => [
  { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: t }, finish_reason: null }] },
  { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage },
]
const toolCall = (name, args) => [
  {
    ...base,
    choices: [
      {
        index: 0,
        delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_fake_1', type: 'function', function: { name, arguments: args } }] },
        finish_reason: null,
      },
    ],
  },
  { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage },
]

const server = createServer((req, res) => {
  let body = ''
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    let json = {}
    try {
      json = JSON.parse(body)
    } catch {}
    appendFileSync(log, JSON.stringify({ url: req.url, body: json }) + '\n')
    if (!req.url.endsWith('/chat/completions')) return void res.writeHead(404).end()
    const hasTools = (json.tools ?? []).some((t) => t.function?.name === 'memory')
    const toolDone = (json.messages ?? []).some((m) => m.role === 'tool')
    const args = process.env.FAKE_LLM_TOOL_ARGS
    if (hasTools && !toolDone && args) sse(res, toolCall('memory', args))
    else sse(res, text(hasTools ? (process.env.FAKE_LLM_REPLY ?? 'ok') : 'E2E title'))
  })
})
server.listen(port, '127.0.0.1', () => console.log(`fake-llm listening on ${server.address().port}`))
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)))
