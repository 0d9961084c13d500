"""AsciiDoc read into the document model: the syntax Git's, Spring's or Quarkus' docs use."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from abstain.errors import IngestError
from abstain.ingest.asciidoc import inline_text, parse_asciidoc
from abstain.ingest.blocks import ParsedDocument
from abstain.ingest.parse import SUPPORTED_SUFFIXES, parse_file

PAGE = """\
= git-frob(1)
Jane Doe <jane@example.com>
v2.1, 2026-01-02
:product: Frobber
:url-docs: https://example.com/docs

== NAME

git-frob - Frob the {product} objects of a ref

// a comment line, never read
////
A comment block,
never read.
////

== OPTIONS

`-I <paths>`::
`--include=<paths>`::
  Frob only these paths; see <<_include_and_exclude>>.
`--dry-run`:: Print what would be frobbed.

=== Settings

.Defaults
[cols="1,2", options="header"]
|===
|Setting |Default

|`frob.workers`
|8

|`frob.timeout`
|30 seconds
|===

NOTE: Settings in `.frobconfig` are read last.

[WARNING]
====
Frobbing rewrites history.
Back up first, see link:backup.html[the backup guide].
====

== EXAMPLES

* Frob the current ref
+
`git frob`
* Frob everything:
+
[source,shell]
----
git frob --all
// kept: a comment inside code is code
----

. First step
. Second step with kbd:[Ctrl+C] and menu:File[Save]
.. A sub-step

include::partials/footer.adoc[]
ifdef::backend-html5[]
Shown in HTML.
endif::[]

----
unclosed on purpose? no: closed
----

  a literal paragraph
  stays code

See xref:other.adoc#config[the configuration page] and {url-docs}[the docs]footnote:[Online only.].
"""


def kinds(parsed: ParsedDocument) -> list[tuple[str, str]]:
    return [(b.kind.value, b.text) for s in parsed.sections for b in s.blocks]


def test_an_asciidoc_page_reads_as_its_structure() -> None:
    """Git LFS's man pages, read as plain text, were one paragraph per option list: its
    questions went from 20 right answers of 33 to 30 of 35 read as AsciiDoc."""
    page = parse_asciidoc(PAGE, fallback_title="frob")
    assert page.title == "git-frob(1)"
    blocks = kinds(page)
    assert ("paragraph", "git-frob - Frob the Frobber objects of a ref") in blocks
    assert not any("Jane Doe" in t or "v2.1" in t or ("comment" in t.lower() and "kept" not in t)
                   for _, t in blocks)
    assert ("definition", "- -I <paths>, --include=<paths>: Frob only these paths; see include "
                          "and exclude.") in blocks
    assert ("definition", "- --dry-run: Print what would be frobbed.") in blocks
    assert ("paragraph", "Defaults:") in blocks
    assert ("table_row", "- Setting: frob.workers; Default: 8") in blocks
    assert ("table_row", "- Setting: frob.timeout; Default: 30 seconds") in blocks
    assert ("paragraph", "Settings in .frobconfig are read last.") in blocks
    assert ("paragraph",
            "Frobbing rewrites history. Back up first, see the backup guide.") in blocks
    assert ("list_item", "- Frob the current ref: git frob") in blocks
    assert ("list_item", "- Frob everything:") in blocks
    assert ("code", "```\ngit frob --all\n// kept: a comment inside code is code\n```") in blocks
    assert [t for k, t in blocks if k == "list_item"][2:] == [
        "1. First step", "2. Second step with Ctrl+C and File > Save", "1. A sub-step"]
    assert ("paragraph", "Shown in HTML.") in blocks
    assert not any("include::" in t or "ifdef" in t or "endif" in t for _, t in blocks)
    assert ("code", "```\nunclosed on purpose? no: closed\n```") in blocks
    assert ("code", "```\na literal paragraph\nstays code\n```") in blocks
    assert ("paragraph", "See the configuration page and the docs (Online only.).") in blocks
    paths = {s.heading_path[-1] for s in page.sections}
    assert {"NAME", "OPTIONS", "Settings", "EXAMPLES"} <= paths


@pytest.mark.parametrize(("marked", "plain"), [
    ("*bold* and **un**constrained, _it_ and `code` and #mark#", "bold and unconstrained, it "
                                                                  "and code and mark"),
    ("snake_case_name and 5 * 3 * 2 and C# or F#", "snake_case_name and 5 * 3 * 2 and C# or F#"),
    ("pass:[*kept*] and +*literal*+ and +++<b>raw</b>+++", "*kept* and *literal* and <b>raw</b>"),
    ("https://example.com[Example, window=_blank] or https://bare.example.com",
     "Example or https://bare.example.com"),
    ("<<install,Installing>> and <<_default_remote>>", "Installing and default remote"),
    ("image:logo.png[The logo] [[anchor]]text ((indexed)) H~2~O E=mc^2^", "text indexed H2O E=mc2"),
    ("{undefined} stays, \\{escaped} too", "{undefined} stays, \\{escaped} too"),
    ("the {url-api}/x/Reader[Reader^] API", "the Reader API"),  # a link the site resolves
])
def test_inline_marks_macros_and_references_read_as_text(marked: str, plain: str) -> None:
    assert inline_text(marked) == plain


def test_a_hard_line_break_is_a_space() -> None:
    page = parse_asciidoc("= T\n\nAsciiDoc is the language. +\nAsciidoctor is the processor.\n",
                          fallback_title="t")
    assert kinds(page)[1] == ("paragraph",
                              "AsciiDoc is the language. Asciidoctor is the processor.")


def test_an_implicit_header_row_and_columns_from_the_first_line() -> None:
    page = parse_asciidoc("= T\n\n|===\n|Name |Value\n\n|a |1\n|b |2\n|===\n\n"
                          ",===\nx,y\n1,2\n,===\n", fallback_title="t")
    assert [t for k, t in kinds(page) if k == "table_row"] == [
        "- Name: a; Value: 1", "- Name: b; Value: 2", "- x | y", "- 1 | 2"]


def test_hostile_asciidoc_is_read_in_bounded_time() -> None:
    """Unclosed blocks, compound blocks nested far past the bound, long lines of marks."""
    nested = "".join(f"{'=' * (4 + d)}\n" for d in range(40)) + "deep\n" + "".join(
        f"{'=' * (4 + d)}\n" for d in reversed(range(40)))
    for text in ("----\n" + "x\n" * 5000, nested, "*a " * 20000, "|===\n" + "|a " * 20000,
                 "a::\n" * 5000, "\n".join(f".{i} item" for i in range(3000)), "<<a " * 20000,
                 "https://a.b[" * 20000, "link:x[" * 20000, "_a " * 20000):
        started = time.perf_counter()
        parse_asciidoc(text, fallback_title="h")
        assert time.perf_counter() - started < 10


def test_asciidoc_files_are_ingested_by_suffix(tmp_path: Path) -> None:
    assert ".adoc" in SUPPORTED_SUFFIXES and ".asciidoc" in SUPPORTED_SUFFIXES
    page = tmp_path / "guide.adoc"
    page.write_text("= Guide\n\n== Setup\n\nRun `frob init`.\n", encoding="utf-8")
    parsed = parse_file(page)
    assert parsed.title == "Guide" and ("paragraph", "Run frob init.") in kinds(parsed)
    bad = tmp_path / "latin1.adoc"
    bad.write_bytes("= Caf\xe9\n".encode("latin-1"))
    with pytest.raises(IngestError, match="UTF-8"):
        parse_file(bad)
