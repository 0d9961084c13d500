"""abstain inside LlamaIndex, LangChain and Haystack: thin adapters over :class:`~abstain.Pipeline`.

Each adapter only translates: the question goes to the pipeline, its evidence or
:class:`~abstain.answer.Answer` comes back in the framework's types. A refusal reaches the
framework's user as a refusal, never as an empty context that the framework's LLM would
answer anyway: a retriever raises :class:`Refused` (carrying the refused Answer), a query
engine / runnable / component returns the Answer with its refusal. As an agent's tool, the
refusal is the tool's output (LangChain's ``Refused`` is a ``ToolException``; LlamaIndex has
``AbstainRetrieverTool``). Questions and workspaces are checked as ``Pipeline.ask`` checks
them. docs/INTEGRATIONS.md.

===========  ==============================  ===========================  ================
framework    retriever                       answering                    extra
===========  ==============================  ===========================  ================
LlamaIndex   ``llamaindex.AbstainRetriever``  ``AbstainQueryEngine``       ``[llamaindex]``
LangChain    ``langchain.AbstainRetriever``   ``answer_runnable``          ``[langchain]``
Haystack     ``haystack.AbstainRetriever``    ``AbstainAnswerer``          ``[haystack]``
===========  ==============================  ===========================  ================
"""

from __future__ import annotations

from abstain.integrations.base import Refused, gated_evidence

__all__ = ["Refused", "gated_evidence"]
