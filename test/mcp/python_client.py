"""Drive `dsh-memento mcp` with the official MCP Python SDK (a client that is not ours).

Usage: python_client.py <node> <bin/dsh-memento.mjs> <db> <workspace>
Prints one JSON object: what each step saw (test/mcp-python.test.mjs checks it).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main(node: str, bin_path: str, db: str, workspace: str) -> dict:
    asked: list[str] = []
    answers = ["accept", "decline", "accept"]

    async def elicit(_context, params):
        asked.append(params.message)
        return types.ElicitResult(action=answers.pop(0) if answers else "decline")

    server = StdioServerParameters(command=node, args=[bin_path, "mcp", "--db", db, "--workspace", workspace])
    out: dict = {}
    async with stdio_client(server) as (read, write):
        async with ClientSession(
            read,
            write,
            elicitation_callback=elicit,
            client_info=types.Implementation(name="python-sdk-client", version="0.1"),
        ) as session:
            init = await session.initialize()
            out["server"] = {"name": init.server_info.name, "version": init.server_info.version}
            out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
            out["resources"] = sorted(str(r.uri) for r in (await session.list_resources()).resources)

            def called(result) -> dict:
                return {
                    "isError": bool(result.is_error),
                    "structured": result.structured_content,
                    "text": "\n".join(c.text for c in result.content if c.type == "text"),
                }

            out["accepted"] = called(await session.call_tool("memory", {"action": "add", "text": "Prefers uv for Python", "tags": ["python"]}))
            out["declined"] = called(await session.call_tool("memory", {"action": "add", "text": "Declined by the Python client"}))
            out["replaced"] = called(await session.call_tool("memory", {"action": "replace", "match": "uv for", "text": "Prefers uv 0.5 for Python"}))
            out["query"] = called(await session.call_tool("memory", {"action": "query", "text": "uv"}))
            out["recall"] = called(await session.call_tool("memory_recall", {"query": "python"}))
            snapshot = await session.read_resource("memento://snapshot")
            out["snapshot"] = snapshot.contents[0].text
            budgets = await session.read_resource("memento://budgets")
            out["budgets"] = json.loads(budgets.contents[0].text)
    out["asked"] = asked
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:5]))))
