"""The agent loop a user writes with the official `openai` client (bench/agent_turns.py's baseline): the
chat-completions stream merged by hand, each tool call run with `arazzo_runner.arun`, its outputs sent
back, until the model answers. Run as a script: `python bench/agent_user_loop.py DOCUMENT CHAT_URL
SERVER_URL RUNS`."""

import asyncio
import json
import sys

import openai

import arazzo_runner

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "chain",
            "description": "the chain workflow",
            "parameters": {"type": "object", "properties": {"start": {"type": "integer"}}},
        },
    }
]


async def agent(client, loaded, servers, prompt):
    messages = [{"role": "user", "content": prompt}]
    while True:
        stream = await client.chat.completions.create(
            model="agentaus",
            messages=messages,
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
        text, calls = [], {}
        async for chunk in stream:
            for choice in chunk.choices:
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                for part in delta.tool_calls or ():
                    call = calls.setdefault(part.index, {"id": None, "name": None, "arguments": ""})
                    call["id"] = part.id or call["id"]
                    if part.function is not None:
                        call["name"] = part.function.name or call["name"]
                        call["arguments"] += part.function.arguments or ""
        if not calls:
            return "".join(text)
        messages.append(
            {
                "role": "assistant",
                "content": "".join(text) or None,
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in calls.values()
                ],
            }
        )
        for call in calls.values():
            result = await arazzo_runner.arun(
                loaded, call["name"], json.loads(call["arguments"] or "{}"), servers=servers
            )
            (workflow,) = result.workflows
            content = {"status": workflow.status, "outputs": workflow.outputs}
            messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(content, default=str)}
            )


async def main(document, chat, server, runs):
    loaded = arazzo_runner.load(document)
    async with openai.AsyncOpenAI(base_url=chat, api_key="sk-bench-local") as client:
        for _ in range(runs):
            answer = await agent(client, loaded, {"bench": server}, "Run the chain from 3, please.")
            assert answer, answer
    return answer


if __name__ == "__main__":
    print(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))))
