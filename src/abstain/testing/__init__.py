"""Fakes that abstain ships so users and tests fake only the network boundary.

* :class:`~abstain.testing.openai_server.ScriptedOpenAIServer` — a real HTTP server
  on a loopback port speaking the OpenAI-compatible chat and embeddings API,
  with scripted replies, a request log and failure modes.
* :class:`~abstain.embed.hashing.HashingEmbedder` — a deterministic embedder.
"""

from __future__ import annotations

from abstain.testing.openai_server import Reply, Request, ScriptedOpenAIServer, down_url

__all__ = ["Reply", "Request", "ScriptedOpenAIServer", "down_url"]
