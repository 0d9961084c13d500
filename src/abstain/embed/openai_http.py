"""An OpenAI-compatible ``/v1/embeddings`` client (Ollama, vLLM, OpenAI, …)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from abstain.embed.base import Vectors, normalise
from abstain.errors import ModelError


class OpenAIEmbedder:
    def __init__(self, *, base_url: str, model: str, api_key: str | None = None,
                 dim: int | None = None, timeout: float = 30.0, batch_size: int = 64,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"openai:{model}"
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)
        self.dim = dim if dim is not None else int(self.embed_batch(["dimension probe"]).shape[1])

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        url = f"{self.base_url}/embeddings"
        try:
            response = self._client.post(url, json={"model": self.model, "input": list(texts)})
            response.raise_for_status()
            payload: Any = response.json()
            rows = sorted(payload["data"], key=lambda d: d.get("index", 0))
            matrix = np.array([r["embedding"] for r in rows], dtype=np.float32)
        except httpx.HTTPError as exc:
            raise ModelError(f"embedding server {url} failed: {exc}") from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"embedding server {url} returned an unexpected body: {exc}") from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise ModelError(
                f"embedding server {url} returned {matrix.shape} for {len(texts)} texts")
        return normalise(matrix)
