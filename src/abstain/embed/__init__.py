"""Embedders: text in, L2-normalised float32 vectors out.

The seam is one method, :meth:`Embedder.embed_batch`; :func:`embed_texts`
adds batching and a progress callback on top of it.
"""

from __future__ import annotations

from abstain.embed.base import Embedder, embed_texts
from abstain.embed.hashing import HashingEmbedder

__all__ = ["Embedder", "HashingEmbedder", "embed_texts", "load_embedder"]


def load_embedder(spec: str | None = None, *, api_key: str | None = None) -> Embedder:
    """Build an embedder from a short spec.

    ``None`` or ``"minilm"``: the bundled all-MiniLM-L6-v2 int8 ONNX model.
    ``"e5"``: multilingual-e5-small, 4-bit (the ``multilingual`` extra).
    ``"hashing"``: the deterministic test embedder (no model, no meaning).
    ``"openai:MODEL@URL"``: an OpenAI-compatible ``/v1/embeddings`` endpoint.
    """
    if spec in (None, "", "minilm", "default"):
        from abstain.embed.minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if spec == "hashing":
        return HashingEmbedder()
    if spec in ("e5", "multilingual-e5"):
        from abstain.embed.e5 import E5Embedder

        return E5Embedder()
    if spec.startswith("openai:"):
        from abstain.embed.openai_http import OpenAIEmbedder

        model, _, url = spec.removeprefix("openai:").partition("@")
        return OpenAIEmbedder(base_url=url or "http://localhost:11434/v1", model=model,
                              api_key=api_key)
    from abstain.errors import ConfigError

    raise ConfigError(
        f"unknown embedder {spec!r}: use 'minilm', 'e5', 'hashing' or "
        "'openai:MODEL@BASE_URL'"
    )
