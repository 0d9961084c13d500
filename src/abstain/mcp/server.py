"""The MCP server: tools ``ask``, ``search`` and ``list_documents`` over one shared pipeline.

Built on the official ``mcp`` SDK's :class:`~mcp.server.mcpserver.MCPServer`. Each tool is
a thin call into :class:`~abstain.pipeline.Pipeline` (run in a worker thread, as the HTTP
service runs it) whose result is returned twice: as ``structuredContent`` (the TypedDicts
of :mod:`abstain.mcp.results`, published as the tool's output schema) and as readable text.

A call may name its workspace; without one it asks in the server's workspace (``--workspace``),
or, over HTTP, in the workspace of a workspace-scoped key. Over HTTP every request carries an
``abstain keys`` key (:mod:`abstain.mcp.http` checks it); a tool call then checks that the key
may use the workspace it names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from abstain import __version__
from abstain.errors import AbstainError
from abstain.mcp import results
from abstain.options import Resolved, close_shared
from abstain.records import RefusalReason
from abstain.stores.base import check_workspace
from abstain.text import clean
from abstain.validate import MAX_QUESTION_CHARS, unreadable

if TYPE_CHECKING:
    from abstain.pipeline import Pipeline
    from abstain.server.keys import ApiKey, KeyStore

T = TypeVar("T")
MAX_TOP_K = 20

INSTRUCTIONS = """abstain answers questions from a fixed set of documents, or refuses.
Call `ask` for an answer with numbered citations and quotes. When `ask` refuses
(answered: false), the documents do not hold the answer: tell the user so, with the
refusal's message and suggestions, and do not answer from memory. `search` shows the
raw evidence (not an answer); `list_documents` shows what the workspace holds."""

_ASK_DOC = """Answer a question from the workspace's documents, with numbered citations
and quotes, or refuse with a machine-readable reason, a message and suggestions
(answered: false). A refusal means the documents do not support an answer: do not
answer from memory instead."""
_SEARCH_DOC = """The passages that best match a question (keyword and vector search fused),
best first, with their sources. Evidence only, not a checked answer: use `ask` for that."""
_DOCS_DOC = "The documents a workspace holds: id, source, title, chunk count."

Question = Annotated[str, Field(
    description=f"The question, in any language. Longer than {MAX_QUESTION_CHARS:,} "
                "characters, or one with nothing to read in it: `ask` refuses it "
                "(question_too_long, invalid_question), as over HTTP; for `search` it is a "
                "tool error.")]
WorkspaceArg = Annotated[str | None, Field(
    description="Workspace (document collection) to use; default: the server's, or the "
                "API key's.", default=None)]


@dataclass
class Pipelines:
    """The main pipeline and the ``[workspaces.NAME]`` pipelines that share its store."""

    main: Pipeline
    by_workspace: dict[str, Pipeline] = field(default_factory=dict)
    owned: bool = True

    @classmethod
    def open(cls, resolved: Resolved) -> Pipelines:
        # it never writes; no workspace's table (each with one gets its own pipeline)
        main = resolved.shared.open_pipeline(create_store=False)
        try:
            shared = {name: resolved.for_workspace(name)[0].sharing(main)
                      for name in resolved.overrides}
        except BaseException:
            main.close()
            raise
        return cls(main, shared)

    def for_workspace(self, workspace: str) -> Pipeline:
        return self.by_workspace.get(workspace, self.main)

    def close(self) -> None:
        for pipe in self.by_workspace.values():
            close_shared(pipe)
        self.by_workspace = {}
        if self.owned:
            self.main.close()


def create_server(pipelines: Pipelines, *, keys: KeyStore | None = None,
                  name: str = "abstain") -> MCPServer:
    """An MCP server over ``pipelines``. ``keys``: check each call's bearer key against
    the key file (HTTP); None: every workspace may be used (stdio, a local user)."""
    server: MCPServer = MCPServer(name=name, version=__version__, instructions=INSTRUCTIONS,
                                  log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    def workspace_of(requested: str | None, ctx: Context[Any, Any]) -> str:
        key = _caller(keys, ctx.headers)
        default = (key.workspace if key is not None and key.workspace
                   else pipelines.main.workspace)
        try:
            workspace = check_workspace(default if requested is None else requested)
        except AbstainError as exc:
            raise ToolError(str(exc)) from None
        if key is not None and not key.can_access(workspace):
            raise ToolError(f"key {key.id} is for workspace {key.workspace!r}, "
                            f"not {workspace!r}")
        return workspace

    async def known_workspace(requested: str | None, ctx: Context[Any, Any]) -> str:
        """The call's workspace (:func:`workspace_of`), which must hold documents: a tool
        error before the question is looked at, as over HTTP (``404 unknown_workspace``;
        an empty question to a workspace that does not exist was refused
        ``invalid_question``)."""
        ws = workspace_of(requested, ctx)
        known = await _in_thread(pipelines.main.store.workspaces)
        if ws not in known:
            raise ToolError(f"workspace {ws!r} has no documents (workspaces: "
                            f"{', '.join(known) or 'none yet'})")
        return ws

    @server.tool(description=_ASK_DOC, annotations=read_only)
    async def ask(question: Question, ctx: Context[Any, Any], workspace: WorkspaceArg = None,
                  ) -> Annotated[CallToolResult, results.AskResult]:
        ws = await known_workspace(workspace, ctx)
        pipe = pipelines.for_workspace(ws)
        answer = await _in_thread(lambda: pipe.ask(question, workspace=ws))
        result = results.ask_result(answer)
        return _result(results.ask_text(result), result)

    @server.tool(description=_SEARCH_DOC, annotations=read_only)
    async def search(question: Question, ctx: Context[Any, Any],
                     workspace: WorkspaceArg = None,
                     top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K,
                                                 description="How many passages.")] = 5,
                     ) -> Annotated[CallToolResult, results.SearchResult]:
        ws = await known_workspace(workspace, ctx)
        problem = unreadable(clean(question))
        if problem is RefusalReason.QUESTION_TOO_LONG:
            raise ToolError(f"the question is longer than {MAX_QUESTION_CHARS:,} characters "
                            f"({problem}): search with its key words")
        if problem is not None:
            raise ToolError(f"the question is empty: nothing to search for ({problem})")
        pipe = pipelines.for_workspace(ws)
        found = await _in_thread(lambda: pipe.search(question, workspace=ws, top_k=top_k))
        result = results.search_result(question, ws, found)
        return _result(results.search_text(result), result)

    @server.tool(description=_DOCS_DOC, annotations=read_only)
    async def list_documents(ctx: Context[Any, Any], workspace: WorkspaceArg = None,
                             ) -> Annotated[CallToolResult, results.DocumentsResult]:
        ws = await known_workspace(workspace, ctx)
        rows = await _in_thread(lambda: pipelines.main.store.list_documents(ws))
        result = results.documents_result(ws, rows)
        return _result(results.documents_text(result), result)

    return server


def _caller(keys: KeyStore | None, headers: Mapping[str, str] | None) -> ApiKey | None:
    """The key of an HTTP call (already checked by :mod:`abstain.mcp.http`), or None."""
    if keys is None:
        return None
    scheme, _, secret = (headers or {}).get("authorization", "").partition(" ")
    key = keys.verify(secret.strip()) if scheme.lower() == "bearer" else None
    if key is None:
        raise ToolError("send an API key as 'Authorization: Bearer KEY'")
    return key


async def _in_thread(call: Callable[[], T]) -> T:
    """Run a blocking pipeline call in a worker thread; abstain's errors become tool errors
    (a message for the agent, not a traceback)."""
    try:
        return await anyio.to_thread.run_sync(call)
    except AbstainError as exc:
        raise ToolError(str(exc)) from None


def _result(text: str, structured: Mapping[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=dict(structured))
