"""A generator over any OpenAI-compatible chat API (OpenAI, Ollama, vLLM, llama.cpp server).

``POST {base_url}/chat/completions``, plain or streamed (server-sent events, one
``data: {json}`` line per delta, ``data: [DONE]`` at the end). Connect errors,
HTTP 5xx and 429 are retried ``max_retries`` times with exponential backoff
(``backoff`` · 2^attempt seconds, or the server's ``Retry-After`` when shorter
than 30 s); a read timeout, a 4xx or a body that is not the expected JSON is not
retried. ``timeout`` is one overall deadline per call — connect, every read and
every retry together (:mod:`abstain.generate.deadline`), so a server that trickles
bytes cannot hold a call past it. Every call, failed or not, becomes an
:class:`~abstain.answer.LLMCall`; failures raise :class:`~abstain.errors.LLMError`
carrying those records.

Log-probabilities are requested (``logprobs: true``); when the server returns
them the mean token log-probability is kept, and a server that rejects the
parameter with HTTP 400 is asked again without it.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Generator as Gen
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from abstain.errors import ConfigError, LLMError
from abstain.evidence import Evidence
from abstain.generate.base import ChatResult
from abstain.generate.cited import SentenceAssembler, is_question, parse_cited
from abstain.generate.deadline import Deadline, DeadlineExpired
from abstain.generate.prompts import (
    ANSWER_SYSTEM,
    DEFAULT_CONTEXT_TOKENS,
    Message,
    approx_tokens,
    cited_answer_messages,
    clarify_messages,
    context_texts,
    fit_context,
)
from abstain.question import Question
from abstain.records import Generation, LLMCall, Sentence

DEFAULT_TIMEOUT = 60.0
DEFAULT_BACKOFF = 0.5


class _Failure(Exception):
    def __init__(self, outcome: str, message: str, *, retryable: bool = False,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.outcome, self.message = outcome, message
        self.retryable, self.retry_after = retryable, retry_after
        self.attempts = 1


def api_base(url: str) -> str:
    """``http://host:8080`` -> ``http://host:8080/v1``; a URL with a path is kept as given.
    Anything but an http(s) URL with a host is a ConfigError (before any call is made)."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"{url!r} is not an LLM base URL: give http(s)://HOST[:PORT][/PATH] "
                          "of an OpenAI-compatible server, or 'local' for the embedded model")
    return url + "/v1" if parts.path in ("", "/") else url


class OpenAIChatGenerator:
    uses_llm = True
    can_chat = True
    can_clarify = True
    can_stream = False
    """True when made with ``stream=True``: answers arrive sentence by sentence."""

    def __init__(self, base_url: str, model: str | None = None, api_key: str | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT, max_retries: int = 2,
                 backoff: float = DEFAULT_BACKOFF, transport: httpx.BaseTransport | None = None,
                 stream: bool = False, temperature: float = 0.0, max_tokens: int = 300,
                 context_tokens: int = DEFAULT_CONTEXT_TOKENS, logprobs: bool = True,
                 system_prompt: str = ANSWER_SYSTEM,
                 extra_body: dict[str, Any] | None = None) -> None:
        if max_retries < 0 or timeout <= 0:
            raise ConfigError("max_retries must be >= 0 and timeout > 0")
        self.base_url = api_base(base_url)
        self.model = model or "default"
        self.name = f"openai:{self.model}"
        self.can_stream = stream
        self.timeout, self.max_retries, self.backoff = timeout, max_retries, backoff
        self.temperature, self.max_tokens = temperature, max_tokens
        self.context_tokens = context_tokens
        self.system_prompt = system_prompt
        self.extra_body = dict(extra_body or {})
        """Merged into every request body (e.g. llama.cpp's ``repeat_penalty``)."""
        self._logprobs = logprobs
        self._logprobs_note: str | None = None
        """Set once the server rejected ``logprobs``; added to every later answer's notes."""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)
        self._url = f"{self.base_url}/chat/completions"

    # -- the Generator seam --------------------------------------------------
    def generate(self, question: Question, evidence: Sequence[Evidence]) -> Generation:
        if not evidence:
            return self.clarify(question)
        if self.can_stream:
            return _drain(self.stream(question, evidence))
        messages, notes = self._answer_messages(question, evidence)
        result = self.chat(messages, purpose="answer")
        return _generation(self.name, parse_cited(result.text), result,
                           (*notes, *self._fallback_notes()))

    def stream(self, question: Question, evidence: Sequence[Evidence]
               ) -> Gen[Sentence, None, Generation]:
        """Yield each cited sentence as soon as it is complete; return the Generation."""
        messages, notes = self._answer_messages(question, evidence)
        assembler = SentenceAssembler()
        sentences: list[Sentence] = []
        deltas = self.chat_stream(messages, purpose="answer")
        while True:
            try:
                delta = next(deltas)
            except StopIteration as stop:
                result: ChatResult = stop.value
                break
            for sentence in assembler.feed(delta):
                sentences.append(sentence)
                yield sentence
        for sentence in assembler.flush():
            sentences.append(sentence)
            yield sentence
        return _generation(self.name, tuple(sentences), result,
                           (*notes, *self._fallback_notes()))

    def clarify(self, question: Question) -> Generation:
        """The clarify-only prompt: no documents, one short question back."""
        result = self.chat(clarify_messages(question.text), purpose="clarify", max_tokens=80)
        sentences = parse_cited(result.text)
        return Generation(sentences=sentences, model=self.name, llm_called=True,
                          logprob=result.logprob, calls=(result.call,), clarifying=True,
                          raw=result.text, notes=self._fallback_notes())

    def _fallback_notes(self) -> tuple[str, ...]:
        return (self._logprobs_note,) if self._logprobs_note else ()

    def _answer_messages(self, question: Question, evidence: Sequence[Evidence]
                         ) -> tuple[list[Message], tuple[str, ...]]:
        context = fit_context(context_texts(evidence), self.context_tokens)
        note = context.note(self.context_tokens)
        messages = cited_answer_messages(question.text, context, system=self.system_prompt)
        return messages, (note,) if note else ()

    # -- chat calls ------------------------------------------------------------
    def chat(self, messages: list[Message], *, purpose: str, max_tokens: int | None = None,
             timeout: float | None = None) -> ChatResult:
        body = self._body(messages, max_tokens, stream=False)
        started = time.perf_counter()
        tries = [1]
        deadline = Deadline(timeout or self.timeout)
        with deadline, self._recorded_failures(purpose, started, deadline, tries):
            response, tries[0] = self._open(body, deadline)
            try:
                response.read()
            finally:
                response.close()
            deadline.check()
            payload = _json(response.text, self._url)
            try:
                text = _content(payload["choices"][0]["message"])
                usage = payload.get("usage") or {}
                logprob = _mean_logprob([payload["choices"][0].get("logprobs")])
            except (KeyError, IndexError, TypeError, AttributeError) as exc:
                bad = _Failure("malformed", f"{self._url} returned JSON without "
                                            f"choices[0].message.content ({exc!r})")
                bad.attempts = tries[0]
                raise bad from None
        call = self._ok_call(purpose, started, usage, messages, text, tries[0])
        return ChatResult(text, call, logprob)

    def chat_stream(self, messages: list[Message], *, purpose: str,
                    max_tokens: int | None = None) -> Gen[str, None, ChatResult]:
        """Yield text deltas as they arrive; return the ChatResult at the end."""
        body = self._body(messages, max_tokens, stream=True)
        started = time.perf_counter()
        parts: list[str] = []
        logprob_blocks: list[Any] = []
        usage: dict[str, Any] = {}
        tries = [1]
        deadline = Deadline(self.timeout)
        with deadline, self._recorded_failures(purpose, started, deadline, tries):
            response, tries[0] = self._open(body, deadline)
            try:
                for payload in _sse(response.iter_lines(), self._url):
                    usage = payload.get("usage") or usage
                    for choice in payload.get("choices") or []:
                        delta = _content(choice.get("delta") or {})
                        logprob_blocks.append(choice.get("logprobs"))
                        if delta:
                            parts.append(delta)
                            yield delta
            finally:
                response.close()
            deadline.check()
        text = "".join(parts)
        call = self._ok_call(purpose, started, usage, messages, text, tries[0])
        return ChatResult(text, call, _mean_logprob(logprob_blocks))

    def close(self) -> None:
        self._client.close()

    def _ok_call(self, purpose: str, started: float, usage: dict[str, Any],
                 messages: list[Message], text: str, attempts: int) -> LLMCall:
        """The audit record of a completed call; token counts the server did not report are
        estimated (characters / 4) and flagged as such."""
        prompt, completion = _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
        return LLMCall(purpose, self.model, "ok", _ms(started),
                       prompt or _approx(messages), completion or approx_tokens(text),
                       attempts=attempts, tokens_estimated=prompt is None or completion is None)

    @contextlib.contextmanager
    def _recorded_failures(self, purpose: str, started: float, deadline: Deadline,
                           tries: list[int]) -> Iterator[None]:
        """Turn any transport or protocol failure into one LLMError carrying its LLMCall;
        anything that fails once the deadline has passed is a timeout."""
        try:
            yield
        except (_Failure, httpx.HTTPError, DeadlineExpired) as exc:
            if deadline.expired or isinstance(exc, httpx.TimeoutException) or (
                    isinstance(exc, _Failure) and exc.outcome == "timeout"):
                attempts = max(tries[0], getattr(exc, "attempts", 1))
                raise self._error(purpose, self._timeout(deadline, attempts),
                                  started) from None
            if isinstance(exc, _Failure):
                exc.attempts = max(exc.attempts, tries[0])
                raise self._error(purpose, exc, started) from None
            raise self._error(purpose, _Failure("http_error", f"{self._url}: {exc}"),
                              started) from None

    # -- plumbing -----------------------------------------------------------------
    def _body(self, messages: list[Message], max_tokens: int | None, *, stream: bool
              ) -> dict[str, Any]:
        body: dict[str, Any] = {**self.extra_body, "model": self.model, "messages": messages,
                                "temperature": self.temperature,
                                "max_tokens": max_tokens or self.max_tokens}
        if self._logprobs:
            body["logprobs"] = True
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def _open(self, body: dict[str, Any], deadline: Deadline
              ) -> tuple[httpx.Response, int]:
        """Send with retries within the deadline; an open response with status < 400, and
        the tries it took."""
        attempt = 0
        while True:
            attempt += 1
            try:
                request = self._client.build_request(
                    "POST", self._url, json=body, timeout=deadline.timeout(self.timeout),
                    extensions={"trace": deadline.trace})
                response = self._client.send(request, stream=True)
                deadline.watch_response(response)
            except httpx.ConnectError as exc:
                failure = _Failure("unreachable", f"cannot connect to {self._url} ({exc})",
                                   retryable=True)
            except httpx.ConnectTimeout:
                failure = _Failure("unreachable", f"connecting to {self._url} timed out",
                                   retryable=True)
            except httpx.TimeoutException:
                raise self._timeout(deadline, attempt) from None
            except httpx.RemoteProtocolError as exc:
                failure = _Failure("http_error", f"{self._url} closed the connection ({exc})",
                                   retryable=True)
            else:
                if response.status_code < 400:
                    return response, attempt
                response.read()
                response.close()
                if (response.status_code == 400 and "logprobs" in body
                        and "logprob" in response.text.lower()):
                    self._logprobs = False
                    self._logprobs_note = (
                        f"{self._url} rejected logprobs (HTTP 400): answers are requested "
                        "without them, so faithfulness has no generation-confidence term")
                    body = {k: v for k, v in body.items() if k != "logprobs"}
                    attempt -= 1
                    continue
                failure = _status_failure(self._url, response)
            failure.attempts = attempt
            if not failure.retryable or attempt > self.max_retries:
                raise failure
            delay = self.backoff * 2 ** (attempt - 1)
            if failure.retry_after is not None and failure.retry_after < 30:
                delay = max(delay, failure.retry_after)
            if delay >= deadline.remaining():
                raise failure
            time.sleep(delay)

    def _timeout(self, deadline: Deadline, attempts: int) -> _Failure:
        failure = _Failure("timeout", f"{self._url} did not answer within "
                                      f"{deadline.seconds:g} s (one deadline for the "
                                      "whole call)")
        failure.attempts = attempts
        return failure

    def _error(self, purpose: str, failure: _Failure, started: float) -> LLMError:
        tries = f" after {failure.attempts} tries" if failure.attempts > 1 else ""
        message = f"LLM {purpose} call failed{tries}: {failure.message}"
        call = LLMCall(purpose, self.model, failure.outcome, _ms(started), error=message,
                       attempts=failure.attempts)
        return LLMError(message, (call,))


def _generation(name: str, sentences: tuple[Sentence, ...], result: ChatResult,
                notes: tuple[str, ...]) -> Generation:
    clarifying = bool(sentences) and not any(s.cites for s in sentences) and any(
        is_question(s) for s in sentences)
    return Generation(sentences=sentences, model=name, llm_called=True, logprob=result.logprob,
                      calls=(result.call,), clarifying=clarifying, raw=result.text, notes=notes)


def _drain(stream: Gen[Sentence, None, Generation]) -> Generation:
    while True:
        try:
            next(stream)
        except StopIteration as stop:
            result: Generation = stop.value
            return result


def _status_failure(url: str, response: httpx.Response) -> _Failure:
    status = response.status_code
    detail = " ".join(response.text.split())[:200]
    retry_after: float | None = None
    with contextlib.suppress(ValueError):
        retry_after = float(response.headers.get("retry-after", ""))
    return _Failure(f"http_{status}", f"{url} answered HTTP {status}: {detail or '(empty)'}",
                    retryable=status >= 500 or status == 429, retry_after=retry_after)


def _sse(lines: Iterator[str], url: str) -> Iterator[dict[str, Any]]:
    seen = False
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        payload = _json(data, url)
        if "error" in payload:
            raise _Failure("http_error", f"{url} reported an error mid-stream: "
                                         f"{str(payload['error'])[:200]}")
        seen = True
        yield payload
    if not seen:
        raise _Failure("malformed", f"{url} sent no server-sent events")


def _json(text: str, url: str = "the server") -> dict[str, Any]:
    try:
        payload = json.loads(text)
    except ValueError:
        raise _Failure("malformed", f"{url} did not return JSON: "
                                    f"{' '.join(text.split())[:120]!r}") from None
    if not isinstance(payload, dict):
        raise _Failure("malformed", f"expected a JSON object, got {type(payload).__name__}")
    return payload


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _mean_logprob(blocks: Sequence[Any]) -> float | None:
    values = [float(item["logprob"]) for block in blocks if isinstance(block, dict)
              for item in block.get("content") or [] if isinstance(item, dict)
              and isinstance(item.get("logprob"), int | float)]
    return sum(values) / len(values) if values else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and value > 0 else None


def _approx(messages: list[Message]) -> int:
    return sum(approx_tokens(m.get("content", "")) for m in messages)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
