"""The conversation a real tool-calling agent would have had, and its token accounting.

Messages are in the OpenAI chat format: a system message (the agent's standing prompt plus the
mode's instructions), the user prompt, then per turn an assistant message with one tool call
and the tool's result, and a final assistant message with the answer. Tool definitions are
sent with every model call, so they are counted as part of every turn's input.

Accounting (one model call per assistant message, ``k = 1..n``):

* ``input_k`` = tokens of the tool definitions (compact JSON) + ``count_messages`` of every
  message before assistant message ``k`` (with the reply priming);
* ``cache_read_k`` = ``input_{k-1}`` (the prefix already sent on the previous call; 0 for k=1);
* ``output_k`` = ``count_messages([assistant_k], prime_reply=False)``.

The session's :class:`Tokens` is ``input = sum(input_k - cache_read_k)`` (uncached input),
``cache_read = sum(cache_read_k)``, ``output = sum(output_k)``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ghxbench.api import Tokens
from pytest_ghxbench.tokens import count_json, count_messages

__all__ = [
    "SYSTEM_PROMPT",
    "Transcript",
    "TurnTokens",
    "account",
    "bash_tool",
    "function_tool",
]

SYSTEM_PROMPT = (
    "You are an autonomous software engineering agent working on GitHub repositories. "
    "Use the tools you are given to act; do not invent results. When the task is done, "
    "reply with the final answer only."
)


def bash_tool(usage: str) -> dict[str, Any]:
    """A ``bash`` tool definition whose description carries a CLI's usage text."""
    return function_tool(
        "bash",
        "Run a shell command and return its standard output, standard error and exit status. "
        "The command-line tool for GitHub is on the PATH:\n\n" + usage,
        {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command to run"}},
            "required": ["command"],
        },
    )


def function_tool(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """One tool definition in the chat-completions ``tools`` format."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": dict(parameters)},
    }


@dataclass(frozen=True)
class TurnTokens:
    """Token counts of one model call."""

    input: int
    cache_read: int
    output: int


@dataclass
class Transcript:
    """A growing chat transcript: ``tools`` plus ``messages``."""

    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def start(cls, tools: list[dict[str, Any]], instructions: str, prompt: str) -> Transcript:
        """System prompt with the mode's ``instructions``, then the user ``prompt``."""
        system = SYSTEM_PROMPT + ("\n\n" + instructions if instructions else "")
        return cls(
            tools=tools,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": prompt}],
        )

    def tool_turn(self, name: str, arguments: Mapping[str, Any], result: str) -> None:
        """One assistant message calling ``name`` and the tool message with its ``result``."""
        call_id = f"call_{sum(1 for m in self.messages if m['role'] == 'tool') + 1}"
        self.messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": name,
                            "arguments": json.dumps(dict(arguments), ensure_ascii=False),
                        },
                    }
                ],
            }
        )
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": result})

    def answer(self, text: str) -> None:
        """The final assistant message."""
        self.messages.append({"role": "assistant", "content": text})

    def to_json(self) -> dict[str, Any]:
        """The transcript as the chat-completions request body would carry it."""
        return {"tools": self.tools, "messages": self.messages}


def account(
    tools: Sequence[Mapping[str, Any]], messages: Sequence[Mapping[str, Any]]
) -> tuple[Tokens, list[TurnTokens]]:
    """Session tokens and per-turn counts of a transcript, by the rule in this module's doc."""
    tool_tokens = count_json(list(tools)) if tools else 0
    turns: list[TurnTokens] = []
    previous_input = 0
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        context = tool_tokens + count_messages(messages[:index])
        output = count_messages([message], prime_reply=False)
        turns.append(TurnTokens(input=context, cache_read=previous_input, output=output))
        previous_input = context
    tokens = Tokens(
        input=sum(t.input - t.cache_read for t in turns),
        cache_read=sum(t.cache_read for t in turns),
        output=sum(t.output for t in turns),
    )
    return tokens, turns
