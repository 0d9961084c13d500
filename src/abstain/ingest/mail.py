"""E-mail: one message (``.eml``) or a mailbox (``.mbox``), with the standard library.

Each message is a section headed by its subject. Its sender, date and recipients become
one row, labelled as mail clients print a message's headers (``From: …; Sent: …; To: …;
Cc: …``, so that "who sent …?" and "when was … sent?" find their words) and, for a single
``.eml``, the document's metadata (``from``, ``to``, ``cc``, ``date``, ``subject``). The
body is the plain-text part, or the HTML part's text; what the writer did not write is
dropped: quoted lines (``> …``), the "On … wrote:" line that introduces them, a forwarded or
"Original Message" tail, and the signature after a ``-- `` line. Attachments are not read: a
message with only attachments is reported (a single ``.eml`` is skipped with the
attachments' names).
"""

from __future__ import annotations

import email
import mailbox
import re
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from abstain.errors import IngestError
from abstain.ingest.blocks import ParsedDocument, SectionBuilder, one_line, table_row
from abstain.ingest.plain import parse_text

HEADERS = ("from", "to", "cc", "date", "subject")
ROW = (("From", "from"), ("Sent", "date"), ("To", "to"), ("Cc", "cc"))
"""The header row's labels and the headers they show."""
_ATTRIBUTION = re.compile(r"^(on .{0,200}wrote:|.{0,80}schrieb:|le .{0,200}a écrit ?:)\s*$",
                          re.IGNORECASE)
_REPLY_TAIL = re.compile(r"^(-{2,}\s*(original message|forwarded message)\s*-{2,}|_{10,})\s*$",
                         re.IGNORECASE)


def read_mail(path: Path) -> ParsedDocument:
    if path.suffix.lower() == ".eml":
        with path.open("rb") as f:
            message = email.message_from_binary_file(f, policy=policy.default)
        assert isinstance(message, EmailMessage)
        builder = SectionBuilder()
        if not _add_message(message, builder):
            raise IngestError(str(path), _no_text(message))
        meta = {key: str(message[key]) for key in HEADERS if message[key] is not None}
        return ParsedDocument(title=meta.get("subject") or path.stem,
                              sections=builder.build(), metadata=meta)
    box = mailbox.mbox(path, factory=_parse_message, create=False)  # type: ignore[arg-type]
    builder = SectionBuilder()
    try:
        added = sum(_add_message(m, builder) for m in box if isinstance(m, EmailMessage))
    finally:
        box.close()
    if not added:
        raise IngestError(str(path), "no message with a text body in the mailbox "
                                     "(attachments are not ingested)")
    return ParsedDocument(title=path.stem, sections=builder.build())


def _parse_message(f: Any) -> EmailMessage:
    message = email.message_from_binary_file(f, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _add_message(message: EmailMessage, builder: SectionBuilder) -> bool:
    body = new_text(_body(message))
    parsed = parse_text(body, fallback_title="")
    blocks = [b for s in parsed.sections for b in s.blocks]
    if not blocks:
        return False
    builder.heading(1, one_line(str(message["subject"] or "")) or "(no subject)")
    builder.add(table_row([label for label, _ in ROW],
                          [str(message[key] or "") for _, key in ROW]))
    builder.extend(blocks)
    return True


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        content = part.get_content()
    except (LookupError, UnicodeError):
        return ""
    if not isinstance(content, str):
        return ""
    if part.get_content_subtype() == "html":
        from bs4 import BeautifulSoup

        return str(BeautifulSoup(content, "html.parser").get_text("\n"))
    return content


def new_text(body: str) -> str:
    """The lines the writer wrote: quotes, their attribution, a forwarded or original
    message and the signature dropped."""
    kept: list[str] = []
    for line in body.replace("\r\n", "\n").split("\n"):
        if line == "-- " or line.rstrip() == "--" or _REPLY_TAIL.match(line.strip()):
            break
        if line.lstrip().startswith(">"):
            continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    if kept and _ATTRIBUTION.match(kept[-1].strip()):
        kept.pop()
    return "\n".join(kept)


def _no_text(message: EmailMessage) -> str:
    names = [p.get_filename() or p.get_content_type() for p in message.iter_attachments()]
    if names:
        return (f"the message has no text, only attachments ({', '.join(names)}); "
                "attachments are not ingested: save them and ingest them as files")
    return "the message has no text body"
