"""AsciiDoc read into the document model: the syntax Git's, Spring's or Quarkus' docs use."""

from __future__ import annotations

import json
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
    ("pass:[*kept*] and +*literal*+ and +++<b>raw</b>+++ and $$<u@h>$$",
     "*kept* and *literal* and <b>raw</b> and <u@h>"),
    ("https://example.com[Example, window=_blank] or https://bare.example.com",
     "Example or https://bare.example.com"),
    ("<<install,Installing>> and <<_default_remote>>", "Installing and default remote"),
    ("image:logo.png[The logo] [[anchor]]text ((indexed)) H~2~O E=mc^2^", "text indexed H2O E=mc2"),
    ("{undefined} stays, \\{escaped} too, it\\'s", "{undefined} stays, {escaped} too, it's"),
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


def texts(text: str) -> list[tuple[str, str]]:
    return kinds(parse_asciidoc(text, fallback_title="page"))


def test_what_a_review_found_git_pages_lists_and_blocks() -> None:
    """A fresh-eyes review's cases, each a construct real pages use."""
    git = parse_asciidoc("git-add(1)\n==========\n\nNAME\n----\ngit-add - Add file contents\n\n"
                         "OPTIONS\n-------\n-n::\n--dry-run::\n  Don't add.\n", fallback_title="p")
    assert git.title == "git-add(1)"  # Git's man pages: two-line titles, "----" underlines
    assert [s.heading_path[-1] for s in git.sections] == ["NAME", "OPTIONS"]
    assert ("paragraph", "git-add - Add file contents") in kinds(git)
    assert ("definition", "- -n, --dry-run: Don't add.") in kinds(git)
    assert texts("Colors::\n* red\n* blue\n\nSizes:: small or large\n") == [
        ("definition", "- Colors"), ("list_item", "- red"), ("list_item", "- blue"),
        ("definition", "- Sizes: small or large")]
    assert texts("Install using gem::\n+\n $ gem install rouge\n\nBundler::\n+\n----\ngem 'x'\n"
                 "----\n") == [
        ("definition", "- Install using gem"), ("code", "```\n$ gem install rouge\n```"),
        ("definition", "- Bundler"), ("code", "```\ngem 'x'\n```")]
    fenced = texts("== Install\n\n```bash\n# install the deps\npip install x\n// note\n```\n")
    assert fenced[1:] == [("code", "```\n# install the deps\npip install x\n// note\n```")]
    assert texts("* Install it:\n+\n.Example title\n----\nx\n----\n* Next\n+\nNOTE: Be careful.\n"
                 ) == [("list_item", "- Install it:"), ("paragraph", "Example title:"),
                       ("code", "```\nx\n```"), ("list_item", "- Next"),
                       ("paragraph", "Be careful.")]
    assert [t for k, t in texts(".Install\n. download\n. unpack\n\n.Configure\n. edit\n\n"
                                "[start=4]\n. four\n") if k == "list_item"] == [
        "1. download", "2. unpack", "1. edit", "4. four"]
    assert texts("[.output]\n  pry> attributes\n") == [("code", "```\npry> attributes\n```")]
    assert texts("ifdef::env-github[]\nUse the GitHub link.\nendif::[]\nifndef::env-github[]\n"
                 "Use the site link.\nendif::[]\n") == [("paragraph", "Use the site link.")]
    assert texts(":env-github:\nifdef::env-github[Read it on GitHub.]\n") == [
        ("paragraph", "Read it on GitHub.")]
    assert texts("----\nputs x <1>\n----\n<1> The x.\n\nvideo::abc[youtube]\n\n'''\n\n<<<\n") == [
        ("code", "```\nputs x <1>\n```"), ("list_item", "- The x.")]
    assert parse_asciidoc("= {project} Guide\n:project: Frob\n", fallback_title="p").title == (
        "Frob Guide")
    assert texts(":ge: &#8805;\n\nRuby {ge} 2.7\n") == [("paragraph", "Ruby \u2265 2.7")]
    assert texts("`--ref-format=<f>`::\n\nSpecify the format. The valid values are:\n+\n"
                 "include::ref-storage-format.adoc[]\n\n`-j<n>`::\n\tThe number of jobs.\n\n"
                 "See linkgit:git-commit[1].\n") == [  # Git's pages: blank lines, an include
        ("definition", "- --ref-format=<f>: Specify the format. The valid values are:"),
        ("definition", "- -j<n>: The number of jobs."), ("paragraph", "See git-commit(1).")]


def test_what_a_review_found_tables() -> None:
    rows = [t for k, t in texts("|===\n|Setting|Default\n\n|workers|8\n|timeout in seconds 30|ok"
                                "\n|===\n") if k == "table_row"]
    assert rows == ["- Setting: workers; Default: 8", "- Setting: timeout in seconds 30; "
                    "Default: ok"]
    spans = [t for k, t in texts('[cols="1,1,1"]\n|===\n.2+|Build |a |b\n|c |d\n2+|wide |e\n'
                                 '|===\n') if k == "table_row"]
    assert spans == ["- Build | a | b", "- Build | c | d", "- wide | wide | e"]
    assert [t for k, t in texts("[%noheader]\n|===\n|a |b\n\n|c |d\n|===\n")
            if k == "table_row"] == ["- a | b", "- c | d"]
    assert len([t for k, t in texts('[cols="2*,1"]\n|===\n|a |b |c\n|===\n')
                if k == "table_row"]) == 1
    assert [t for k, t in texts('[format=csv]\n|===\nx,y\n1,2\n|===\n')
            if k == "table_row"] == ["- x | y", "- 1 | 2"]


@pytest.mark.parametrize(("marked", "plain"), [
    ("Using the `-` flag, pipe to the `asciidoctor` command",
     "Using the - flag, pipe to the asciidoctor command"),
    ("Use *a* and *bold*", "Use a and bold"),
    ("https://x.org[installation, configuration and usage guide]",
     "installation, configuration and usage guide"),
    ('--include="\\*.jpg,*.png"', '--include="*.jpg,*.png"'),
    ("[line-through]#struck# and the users`' needs, \"`7`\"", "struck and the users' needs, "
                                                             '"7"'),
    ("as `'toc' => 'left'`, not `toc:`", "as 'toc' => 'left', not toc:"),
    ("See <<fetch-refspec,_<refspec>_>> and ``Interactive mode'', `clean' too.",
     "See <refspec> and \"Interactive mode\", 'clean' too."),  # Git's pages, AsciiDoc.py quotes
])
def test_what_a_review_found_inline(marked: str, plain: str) -> None:
    assert inline_text(marked) == plain


def test_what_a_review_found_never_raises_nor_stalls() -> None:
    doubling = "".join(f":a{n + 1}: {{a{n}}}{{a{n}}}\n" for n in range(40))
    for text in (",===\n" + "a" * 200000 + "\n,===\n",
                 '[cols="' + "9" * 5000 + '*"]\n|===\n|a\n|===\n',
                 "= a" + " " * 100000 + "b\n", ":a0: xx\n" + doubling + "{a40}\n"):
        started = time.perf_counter()
        parse_asciidoc(text, fallback_title="h")
        assert time.perf_counter() - started < 5
    assert inline_text("a\ue0005\ue001b") == "ab"


@pytest.mark.parametrize(("text", "kind"), [
    ("= git-add(1)\n\n== NAME\n\ngit-add - Add\n", "asciidoc"),
    ("NAME\n----\nx\n\nOPTIONS\n-------\n-n::\n--dry-run::\n  Don't.\n-v::\n  Be verbose.\n",
     "asciidoc"),
    ("Unreleased\n----------\n\nBugfix\n~~~~~~\n\n- Renamed the header.\n", "rst"),
    ("0.26.1\n------\n\n* Added ``README.es.rst`` and ``x``.\n", "rst"),
    ("Intro\n\n.. note::\n\n   Careful.\n\nSee :func:`run`.\n", "rst"),
    ("# Title\n\nSee [the docs](https://example.com).\n", "markdown"),
    ("Plain notes.\n\nA second paragraph - with a dash.\n", "text"),
    ("# Licensed under the Apache License\n# you may not use this file\n# except in "
     "compliance\n", "text"),  # a licence header's comments are no headings
    ("= Asciidoctor Changelog\n:idprefix:\n\n== Unreleased\n\nBug Fixes::\n\n  * Fix x\n"
     "  * Fix y\n", "asciidoc"),  # "= Title" and its attributes decide
])
def test_a_txt_file_is_read_as_what_it_is_written_in(text: str, kind: str) -> None:
    """Git kept its AsciiDoc pages as .txt until 2025, Django its reST docs, many projects
    their reST changelogs (waitress, Pygments, prompt_toolkit, responses)."""
    from abstain.ingest.parse import text_format

    assert text_format(text) == kind


def test_a_txt_file_in_asciidoc_or_rst_keeps_its_structure(tmp_path: Path) -> None:
    adoc = tmp_path / "git-add.txt"
    adoc.write_text("git-add(1)\n==========\n\nOPTIONS\n-------\n-n::\n--dry-run::\n"
                    "  Don't add.\n-v::\n  Be verbose.\n", encoding="utf-8")
    assert ("definition", "- -n, --dry-run: Don't add.") in kinds(parse_file(adoc))
    pytest.importorskip("docutils")
    rst = tmp_path / "CHANGES.txt"
    rst.write_text("3.0.2\n-----\n\nSecurity\n~~~~~~~~\n\n- Drop untrusted values.\n",
                   encoding="utf-8")
    parsed = parse_file(rst)
    assert ("list_item", "- Drop untrusted values.") in kinds(parsed)
    assert parsed.sections[-1].heading_path == ("3.0.2", "Security")


def test_what_a_txt_file_was_read_as_is_reported_and_a_fallback_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A .txt file read as another format says so; one written in reST read as plain text
    because docutils is missing says why, on the terminal too (no silent fallback)."""
    import importlib.util

    from click.testing import CliRunner

    from abstain.cli import cli

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "CHANGES.txt").write_text("3.0.2\n-----\n\nSecurity\n~~~~~~~~\n\n- Drop untrusted "
                                      "values.\n", encoding="utf-8")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "docutils" else real(name, *a))
    result = CliRunner().invoke(cli, ["ingest", str(docs), "--db", str(tmp_path / "kb.db"),
                                      "--embedder", "hashing"])
    assert result.exit_code == 0, result.output
    assert "as plain text, though written in reStructuredText: docutils is not installed" in (
        result.output)
    monkeypatch.setattr(importlib.util, "find_spec", real)
    pytest.importorskip("docutils")
    result = CliRunner().invoke(cli, ["ingest", str(docs), "--db", str(tmp_path / "j.db"),
                                      "--embedder", "hashing", "--json"])
    assert json.loads(result.stdout)["read_as"] == [
        {"source": str((docs / "CHANGES.txt").resolve()), "as": "reStructuredText"}]
