"""Each format into the document model, and bad input skipped with its reason (documents
are built here, in the tests)."""

from __future__ import annotations

import json
import mailbox
import tracemalloc
from email.message import EmailMessage
from pathlib import Path

import pytest

from abstain.embed import HashingEmbedder
from abstain.errors import IngestError
from abstain.evidence import ChunkKind
from abstain.ingest.blocks import ParsedDocument
from abstain.ingest.chunk import iter_chunks
from abstain.ingest.parse import parse_file, parse_string
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore


def kinds(doc: ParsedDocument) -> list[tuple[str, str]]:
    return [(b.kind.value, b.text) for s in doc.sections for b in s.blocks]


@pytest.fixture
def pipe(tmp_path: Path) -> Pipeline:
    return Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder())


RST = """\
=========
Reference
=========

Settings
--------

The service reads these settings:

* ``APP_DB_URL``: PostgreSQL connection string. Required.
* ``APP_TIMEOUT``: request timeout in seconds. Default 30.

See :ref:`errors` and :func:`~app.db.connect` (:issue:`12`).

.. code-block:: python

    connect(url, timeout=30)

.. versionadded:: 2.1
   The timeout setting.

.. toctree::

   other

.. _errors:

Errors
------

:E1001: connection refused
:E1002: disk full

.. list-table::
   :header-rows: 1

   * - Code
     - Meaning
   * - E1003
     - token expired
"""


def test_rst_sections_units_roles_and_directives(tmp_path: Path) -> None:
    f = tmp_path / "ref.rst"
    f.write_text(RST)
    doc = parse_file(f)
    assert doc.title == "Reference"
    assert [s.heading_path for s in doc.sections] == [("Reference", "Settings"),
                                                      ("Reference", "Errors")]
    assert kinds(doc) == [
        ("heading", "Reference"), ("heading", "Settings"),
        ("paragraph", "The service reads these settings:"),
        ("definition", "- APP_DB_URL: PostgreSQL connection string. Required."),
        ("definition", "- APP_TIMEOUT: request timeout in seconds. Default 30."),
        ("paragraph", "See Errors and connect (#12)."),
        ("code", "```\nconnect(url, timeout=30)\n```"),
        ("paragraph", "New in version 2.1: The timeout setting."),
        ("heading", "Errors"),
        ("definition", "- E1001: connection refused"), ("definition", "- E1002: disk full"),
        ("table_row", "- Code: E1003; Meaning: token expired")]


def test_rst_refs_across_pages_and_no_table_of_contents(tmp_path: Path) -> None:
    (tmp_path / "api.rst").write_text("API\n===\n\n.. contents::\n\n.. _api_counts:\n\n"
                                      "Cached counts\n-------------\n\nCounts are cached.\n")
    (tmp_path / "cli.rst").write_text("CLI\n===\n\nSee :ref:`api_counts` and "
                                      ":ref:`the docs <api_counts>`.\n")
    api = parse_file(tmp_path / "api.rst")
    assert kinds(api) == [("heading", "API"), ("heading", "Cached counts"),
                          ("paragraph", "Counts are cached.")]
    cli = parse_file(tmp_path / "cli.rst")
    assert kinds(cli) == [("heading", "CLI"),
                          ("paragraph", "See Cached counts and the docs.")]


def test_setext_and_plain_text_headings_and_lists() -> None:
    doc = parse_string("Guide\n=====\n\nIntro line one\nwrapped here.\n\nSteps:\n- first\n"
                       "- second\n\nDetails\n-------\n\nMore.\n", name="g.txt", fmt="txt")
    assert doc.title == "Guide"
    assert kinds(doc) == [
        ("heading", "Guide"), ("paragraph", "Intro line one wrapped here."),
        ("paragraph", "Steps:"), ("list_item", "- first"), ("list_item", "- second"),
        ("heading", "Details"), ("paragraph", "More.")]
    assert doc.sections[0].blocks[3].lead == "Steps:"
    md = parse_string("Title\n=====\n\nText.\n\nPart\n----\n\n- a\n", name="m.md")
    assert [s.heading_path for s in md.sections] == [("Title",), ("Title", "Part")]



def test_a_markdown_heading_s_attribute_list_is_not_its_text() -> None:
    """Found on cibuildwheel's options page (MkDocs' attr_list): the section "test-extras {:
    #test-extras env-var toml}" was quoted and matched under that whole name. Python-Markdown's
    ``{: …}`` and Pandoc's ``{#id .class}`` name an anchor; braces that are the heading's own
    text stay."""
    md = parse_string("# Options\n\n## test-extras {: #test-extras env-var toml}\n\nInstall "
                      "extras.\n\n## Phases {#stages .x}\n\nText.\n\n## Using {} in "
                      "templates\n\nMore.\n", name="o.md")
    assert [s.heading_path[-1] for s in md.sections] == [
        "test-extras", "Phases", "Using {} in templates"]


def test_a_table_right_under_a_closed_html_line_and_tabs_of_several_words() -> None:
    """Found by a newcomer on cibuildwheel's options page: its table of build identifiers
    sits right under ``<div class="build-id-table-marker"></div>``, which CommonMark runs on
    as one HTML block, so the table was left out (as keyword stuffing) and "what is the
    identifier for CPython 3.12 on Windows?" got another passage; and its examples are tabs
    written ``!!! tab examples "pyproject.toml"``, read as an indented code block with the
    marker in it; and its cells list identifiers one per ``<br/>``, which ran together. The
    table is read, a ``<br/>`` parts a cell's values, and the tab is read as a tab."""
    md = parse_string('# T\n\nIdentifiers:\n\n<div class="m"></div>\n| | Windows |\n|---|---|\n'
                      '| Python 3.12 | cp312-win_amd64<br/>cp312-win32 |\n\n'
                      '!!! tab examples "pyproject.toml"\n\n'
                      '    ```toml\n    [tool.x]\n    skip = "pp*"\n    ```\n\nAfter.\n',
                      name="o.md")
    assert kinds(md)[1:] == [
        ("paragraph", "Identifiers:"),
        ("table_row", "- Python 3.12; Windows: cp312-win_amd64 cp312-win32"),
        ("paragraph", "pyproject.toml:"), ("code", '```\n[tool.x]\nskip = "pp*"\n```'),
        ("paragraph", "After.")]
    assert not md.dropped


def test_what_the_markdown_fixes_leave_alone() -> None:
    """A reviewer's cases: an empty cell on its own line inside an HTML table is no closed
    line that ends a block (the header was lost); a sentence after ``!!!`` without a title is
    no admonition (it vanished); braces in a heading's code span are the heading's text."""
    table = ("# T\n\n<table>\n<tr>\n<th></th>\n<th>Windows</th>\n</tr>\n<tr>\n"
             "<td>Python 3.12</td>\n<td>cp312</td>\n</tr>\n</table>\n")
    assert ("table_row", "- Python 3.12; Windows: cp312") in kinds(parse_string(table,
                                                                              name="t.md"))
    said = kinds(parse_string("# T\n\n!!! Do not run this in production\n\nText.\n",
                              name="a.md"))
    assert any("Do not run this in production" in text for _, text in said)
    md = parse_string("# T\n\n## Format spec `{:>10}`\n\nText.\n\n## Sets {.a}\n\nMore.\n",
                      name="h.md")
    assert [s.heading_path[-1] for s in md.sections] == ["Format spec {:>10}", "Sets"]


def test_each_piece_of_a_long_definition_says_what_it_defines() -> None:
    """Found by a newcomer on waitress's reST arguments: server_name's definition was longer
    than a chunk, its last piece "Default: waitress.invalid" opened the next chunk above
    "- ipv6: Enable or disable IPv6", and "what is ipv6's default?" was answered with it. Each
    piece after the first repeats the term; a chunk of one piece is as it was."""
    from abstain.ingest.chunk import ChunkingConfig

    long = " ".join(f"Sentence {i} about the server name value." for i in range(30))
    rst = (f"Arguments\n=========\n\nserver_name\n    {long}\n\n    Default: ``waitress.invalid``"
           "\n\nipv6\n    Enable or disable IPv6 (boolean)\n")
    parsed = parse_string(rst, name="arguments.rst", fmt="rst")
    children = [c.text for c in iter_chunks("d", parsed, ChunkingConfig())
                if c.kind is ChunkKind.CHILD]
    defaults = [line for text in children for line in text.split("\n")
                if "waitress.invalid" in line]
    assert defaults and all(line.startswith("- server_name: ") for line in defaults)
    firsts = [line for text in children for line in text.split("\n") if "Sentence 0 " in line]
    assert firsts and all(line.startswith("- server_name: ") for line in firsts)
    assert any(line == "- ipv6: Enable or disable IPv6 (boolean)"
               for text in children for line in text.split("\n"))
    words = parse_string(rst.replace("server_name", "-w, --workers"), name="a.rst", fmt="rst")
    lines = [line for c in iter_chunks("d", words, ChunkingConfig()) if c.kind is ChunkKind.CHILD
             for line in c.text.split("\n") if "waitress.invalid" in line]  # a term of words
    assert lines and all(line.startswith("- -w, --workers: ") for line in lines)


HEADER_UNMARKED = """\
Options
=======

========== ============== ==================================== =======
Attribute  Command line   Purpose                              Default
---------- -------------- ------------------------------------ -------
backlog    --backlog      The maximum number of pending        100
                          connections.
bind       -b, --bind     The TCP host/address to bind to.
debug      --debug        Enable debug mode.                   False
========== ============== ==================================== =======

+---------------+-----------+
| **Attempt**   | **Delay** |
+---------------+-----------+
| 2nd attempt   | 20 s      |
+---------------+-----------+
| 3rd attempt   | 40 s      |
+---------------+-----------+

+------------------+----------+--------+
|                  | Dramatiq | Celery |
+------------------+----------+--------+
| Windows support  | Yes      | No     |
+------------------+----------+--------+
| Python 2 support | No       | Yes    |
+------------------+----------+--------+

.. list-table::

   * - Type
     - String
   * - Default
     - n/a
   * - Reloadable
     - Y

.. list-table::

   * - message_type
     - Always "status"
   * - seconds_elapsed
     - Time since the backup started

.. list-table::

   * - Linux
     - Supported
   * - macOS
     - Supported since 2.0
   * - Windows
     - Not supported

=====  =====  ======
Inputs        Output
------------  ------
A      B      A or B
0      0      0
1      0      1
=====  =====  ======
"""


def test_a_header_written_as_a_first_row_heads_the_table() -> None:
    """A table with no marked header (a reST table ruled with ``---``, bold cells, a matrix
    with an empty corner) carries its first row as the header; a key's rows (all labels in
    the first column) and rows of values stay rows."""
    rows = [t for k, t in kinds(parse_string(HEADER_UNMARKED, name="o.rst", fmt="rst"))
            if k == "table_row"]
    assert rows == [
        "- Attribute: backlog; Command line: --backlog; Purpose: The maximum number of "
        "pending connections.; Default: 100",
        "- Attribute: bind; Command line: -b, --bind; Purpose: The TCP host/address to bind to.",
        "- Attribute: debug; Command line: --debug; Purpose: Enable debug mode.; Default: False",
        "- Attempt: 2nd attempt; Delay: 20 s", "- Attempt: 3rd attempt; Delay: 40 s",
        "- Windows support; Dramatiq: Yes; Celery: No",
        "- Python 2 support; Dramatiq: No; Celery: Yes",
        "- Type | String", "- Default | n/a", "- Reloadable | Y",
        '- message_type | Always "status"', "- seconds_elapsed | Time since the backup started",
        "- Linux | Supported", "- macOS | Supported since 2.0", "- Windows | Not supported",
        "- Inputs | Output", "- A | B | A or B", "- 0 | 0 | 0", "- 1 | 0 | 1"]
    html = ("<h1>T</h1><table><tr><td><b>Name</b></td><td><b>Default</b></td></tr>"
            "<tr><td>workers</td><td>4</td></tr><tr><td>timeout</td><td>30s</td></tr></table>"
            "<table><tr><td>Type</td><td>String</td></tr><tr><td>Default</td><td>n/a</td></tr>"
            "<tr><td>Reloadable</td><td>Y</td></tr></table>")
    assert [t for k, t in kinds(parse_string(html, name="t.html")) if k == "table_row"] == [
        "- Name: workers; Default: 4", "- Name: timeout; Default: 30s",
        "- Type | String", "- Default | n/a", "- Reloadable | Y"]


def test_an_html_thead_of_td_cells_heads_and_a_nested_table_stays_in_its_cell() -> None:
    """``<thead>`` is the header whatever its cells' tags; a table inside a cell is that
    cell's text, not more cells or rows of the outer table."""
    html = ("<h1>T</h1><table><thead><tr><td>Name</td><td>Default</td></tr></thead><tbody>"
            "<tr><td>workers</td><td>4</td></tr>"
            "<tr><td>mode</td><td>fast <table><tr><td>fast</td><td>1 s</td></tr></table></td>"
            "</tr></tbody></table>")
    assert [t for k, t in kinds(parse_string(html, name="t.html")) if k == "table_row"] == [
        "- Name: workers; Default: 4", "- Name: mode; Default: fast fast 1 s"]


def test_headings_inside_a_container_open_sections_under_its_title() -> None:
    """A VitePress ``::: v-pre`` holding a whole changelog keeps each release under its own
    heading; a titled ``::: details`` holding headings puts them under its title (the
    shell they are for), and the page goes on under the heading it was in."""
    changelog = parse_string("# Changelog\n\n::: v-pre\n\n## v3.53.0 - 2026-08-18\n\n"
                             "- Added timeouts.\n\n## v3.52.0 - 2026-07-02\n\n"
                             "- Added secrets.\n\n:::\n", name="changelog.md")
    assert [s.heading_path for s in changelog.sections] == [
        ("Changelog", "v3.53.0 - 2026-08-18"), ("Changelog", "v3.52.0 - 2026-07-02")]
    page = parse_string(
        "# Start\n\n## Configure\n\n::: details Fish **shell**\n\n##### Add shims\n\n"
        "Edit config.fish.\n\n:::\n\n::: tip `Note`\n\nRestart it.\n\n:::\n\n"
        "Then go on.\n", name="start.md")
    assert [(s.heading_path, [b.text for b in s.blocks]) for s in page.sections] == [
        (("Start", "Configure", "Fish shell", "Add shims"),
         ["Start", "Configure", "Fish shell", "Add shims", "Edit config.fish."]),
        (("Start", "Configure"), ["Note:", "Restart it.", "Then go on."])]


def test_markdown_footnotes_are_notes_where_written_not_markup() -> None:
    """rustup's "x86_64-pc-windows-gnu[^msys2]": a footnote reference is no part of the word
    it follows; a note is a paragraph where the page writes it (one no reference points to
    too); "^[a-z]" is a pattern, not an inline note."""
    doc = parse_string("# Install\n\n- x86_64-pc-windows-gnu[^msys2]\n\n"
                       "[^msys2]: GNU builds need no extra software.\n\n## Checksums\n\n"
                       "The pattern ^[a-f0-9]+$ matches one.\n\n[^x]: An orphan note.\n",
                       name="other.md")
    assert [(s.heading_path, [b.text for b in s.blocks]) for s in doc.sections] == [
        (("Install",), ["Install", "- x86_64-pc-windows-gnu",
                        "GNU builds need no extra software."]),
        (("Install", "Checksums"), ["Checksums", "The pattern ^[a-f0-9]+$ matches one.",
                                    "An orphan note."])]


def test_what_a_container_holds_stays_in_its_place() -> None:
    """After a review: a MyST directive's YAML options are no heading, an object's signature
    keeps its marks, a note's heading goes under the section it is in, a container titles no
    page, and the page goes on under its heading after one holding an HTML heading."""
    def read(text: str) -> tuple[str, list[tuple[tuple[str, ...], list[str]]]]:
        doc = parse_string(text, name="a.md")
        return doc.title, [(s.heading_path, [b.text for b in s.blocks]) for s in doc.sections]

    assert read("# A\n\n## B\n\n:::{admonition} Title\n---\nclass: tip\n---\nText.\n:::"
                "\n\nAfter.\n")[1] == [(("A", "B"), ["A", "B", "Title:", "Text.", "After."])]
    assert read(":::{py:method} __init__(self, *args)\nMakes one.\n:::\n")[1] == [
        ((), ["__init__(self, *args):", "Makes one."])]
    assert read("# A\n\n## B\n\n:::{note}\n## Inner\n\nx\n:::\n\nAfter.\n")[1] == [
        (("A", "B", "Inner"), ["A", "B", "Inner", "x"]), (("A", "B"), ["After."])]
    assert read("::: details Fish\n\n## Inner\n\nText.\n\n:::\n\n# Title\n\nBody.\n")[0] \
        == "Title"
    assert read("# A\n\n## B\n\n::: tip\n\n<h3>Heads up</h3>\n<p>Careful.</p>\n\n:::\n\n"
                "After.\n")[1][-1] == (("A", "B"), ["After."])


def test_rst_signatures_and_unparsed_markup_in_an_argument_stay_as_written() -> None:
    doc = parse_string("T\n=\n\n.. py:function:: send(*args, \\**kwargs)\n\n   Sends.\n\n"
                       ".. attribute:: type_\n\n   The type.\n\n.. tab:: Linux / *nix\n\n"
                       "   Text.\n\nSee :ref:`faq:why-not`.\n", name="a.rst", fmt="rst")
    assert [t for _, t in kinds(doc)[1:]] == [
        "send(*args, **kwargs)", "Sends.", "type_", "The type.", "Linux / *nix", "Text.",
        "See faq:why not."]


def test_html_rows_and_cells_left_unclosed_and_a_header_of_two_rows() -> None:
    """End tags HTML lets a page leave out (``</tr>``, ``</td>``), which html.parser nests,
    and a ``<thead>`` of two rows read column by column."""
    def rows(html: str) -> list[str]:
        return [t for k, t in kinds(parse_string("<h1>T</h1>" + html, name="t.html"))
                if k == "table_row"]

    assert rows("<table><tr><th>A</th><th>B</th><tr><td>1</td><td>2</td><tr><td>3<td>4"
                "</table>") == ["- A: 1; B: 2", "- A: 3; B: 4"]
    assert rows("<table><thead><tr><th></th><th colspan=2>Limits</th></tr><tr><th>Plan</th>"
                "<th>CPU</th><th>RAM</th></tr></thead><tr><td>Free</td><td>1</td><td>1GB</td>"
                "</tr></table>") == ["- Plan: Free; Limits CPU: 1; Limits RAM: 1GB"]


def test_plain_text_tables_of_aligned_columns_become_rows() -> None:
    doc = parse_string(
        "Support\n=======\n\nEach line is supported for 18 months.\n"
        "  Line   First release   End of support\n"
        "  ----   -------------   --------------\n"
        "  2.3    2023-09-12      2025-03-12\n"
        "  1.3    2022-01-18      2023-07-18  (end of life)\n"
        "                         for 1.x\n\n"
        "=====  ======\nCode   Meaning\n=====  ======\nE1     bad input\n=====  ======\n\n"
        "Not a table\n-----------\n\nText.\n", name="c.txt", fmt="txt")
    assert kinds(doc) == [
        ("heading", "Support"), ("paragraph", "Each line is supported for 18 months."),
        ("table_row", "- Line: 2.3; First release: 2023-09-12; End of support: 2025-03-12"),
        ("table_row", "- Line: 1.3; First release: 2022-01-18; "
                      "End of support: 2023-07-18 (end of life) for 1.x"),
        ("table_row", "- Code: E1; Meaning: bad input"),
        ("heading", "Not a table"), ("paragraph", "Text.")]

def test_html_headings_definitions_and_rows() -> None:
    doc = parse_string("<h1>API</h1><p>Codes:</p><table><tr><th>Code</th><th>Meaning</th></tr>"
                       "<tr><td>E1</td><td>bad</td></tr></table><dl><dt>retry</dt><dd>try "
                       "again</dd></dl><h3>Deep</h3><pre>x = 1\ny = 2</pre>", name="a", fmt="html")
    assert kinds(doc) == [("heading", "API"), ("paragraph", "Codes:"),
                          ("table_row", "- Code: E1; Meaning: bad"),
                          ("definition", "- retry: try again"), ("heading", "Deep"),
                          ("code", "```\nx = 1\ny = 2\n```")]


def test_docx_headings_lists_and_tables(tmp_path: Path) -> None:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_heading("Purchasing policy", level=1)
    document.add_paragraph("Approvals needed:")
    document.add_paragraph("Orders over 5,000 EUR need the CFO.", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for cell, text in zip([*table.rows[0].cells, *table.rows[1].cells],
                          ["Supplier", "Terms", "Acme", "30 days"], strict=True):
        cell.text = text
    f = tmp_path / "policy.docx"
    document.save(str(f))
    doc = parse_file(f)
    assert doc.title == "Purchasing policy"
    assert kinds(doc) == [("heading", "Purchasing policy"), ("paragraph", "Approvals needed:"),
                          ("list_item", "- Orders over 5,000 EUR need the CFO."),
                          ("table_row", "- Supplier: Acme; Terms: 30 days")]


def test_pptx_slides_are_sections(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly plan"
    body = slide.placeholders[1].text_frame
    body.text = "Goals:"
    item = body.add_paragraph()
    item.text = "Ship 5.2 by March."
    item.level = 1
    f = tmp_path / "plan.pptx"
    deck.save(str(f))
    doc = parse_file(f)
    assert kinds(doc) == [("heading", "Quarterly plan"), ("paragraph", "Goals:"),
                          ("list_item", "- Ship 5.2 by March.")]
    assert doc.sections[0].blocks[2].lead == "Goals:"


def test_pdf_outline_entries_are_headings(tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.start_section("retention policy for backups")
    pdf.multi_cell(0, 8, "retention policy for backups", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 8, "backups are kept for thirty days.", new_x="LMARGIN", new_y="NEXT")
    f = tmp_path / "r.pdf"
    pdf.output(str(f))
    doc = parse_file(f)
    assert [s.heading_path for s in doc.sections] == [("retention policy for backups",)]


def test_password_protected_pdf_is_skipped_as_such(pipe: Pipeline, tmp_path: Path) -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 8, "Secret text.")
    f = tmp_path / "locked.pdf"
    pdf.output(str(f))
    report = pipe.ingest([f])
    assert report.skipped == [(str(f), "a password-protected PDF; save an unprotected copy "
                                       "to ingest it")]


def test_notebook_cells_without_outputs(tmp_path: Path) -> None:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Tutorial\n", "\n", "Load it:"]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "import app",
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "x" * 2_000_000}]},
        {"cell_type": "markdown", "metadata": {}, "source": "## Next\n\nMore."}]}
    f = tmp_path / "t.ipynb"
    f.write_text(json.dumps(nb))
    doc = parse_file(f)
    assert kinds(doc) == [("heading", "Tutorial"), ("paragraph", "Load it:"),
                          ("code", "```\nimport app\n```"), ("heading", "Next"),
                          ("paragraph", "More.")]


def mail_message(subject: str, body: str | None, attachment: bool = False) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "ann@example.com"
    msg["To"] = "ops@example.com"
    msg["Date"] = "Tue, 11 Feb 2025 10:00:00 +0000"
    msg["Subject"] = subject
    if body is not None:
        msg.set_content(body)
    if attachment:
        msg.add_attachment(b"%PDF-1.4", maintype="application", subtype="pdf",
                           filename="invoice.pdf")
    return msg


def test_eml_headers_as_metadata_quotes_and_signature_dropped(tmp_path: Path) -> None:
    f = tmp_path / "m.eml"
    f.write_bytes(bytes(mail_message("Renewal", "The contract renews on 1 March.\n\nOn Mon, Bob "
                                 "wrote:\n> Old question?\n\n-- \nAnn, Procurement\n")))
    doc = parse_file(f)
    assert doc.title == "Renewal"
    assert doc.metadata["from"] == "ann@example.com"
    assert kinds(doc) == [("heading", "Renewal"), (
        "table_row", "- From: ann@example.com; Sent: Tue, 11 Feb 2025 10:00:00 +0000; "
                     "To: ops@example.com"),
        ("paragraph", "The contract renews on 1 March.")]


def test_mbox_messages_are_sections(tmp_path: Path) -> None:
    f = tmp_path / "box.mbox"
    box = mailbox.mbox(f)
    box.add(mail_message("First", "Hello one."))
    box.add(mail_message("Only a file", None, attachment=True))
    box.add(mail_message("Second", "Hello two."))
    box.close()
    doc = parse_file(f)
    assert [s.heading_path for s in doc.sections] == [("First",), ("Second",)]


def test_csv_rows_carry_their_header(tmp_path: Path) -> None:
    f = tmp_path / "suppliers.csv"
    f.write_text("supplier;country;terms\nAcme;DE;30 days\nGlobex;FR;\n")
    doc = parse_file(f)
    assert kinds(doc) == [("table_row", "- supplier: Acme; country: DE; terms: 30 days"),
                          ("table_row", "- supplier: Globex; country: FR")]


def _workbook(path: Path, sheets: dict[str, list[list[object]]], *,
              hidden: tuple[str, ...] = (), formats: dict[tuple[str, str], str] | None = None
              ) -> Path:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
        if name in hidden:
            sheet.sheet_state = "hidden"
    for (name, cell), number_format in (formats or {}).items():
        book[name][cell].number_format = number_format
    book.save(str(path))
    return path


def test_a_workbook_s_visible_sheets_are_tables_read_as_excel_shows_them(
        tmp_path: Path) -> None:
    import datetime

    f = _workbook(tmp_path / "catalogue.xlsx", {
        "Prices": [["Price list 2026"], [], ["SKU", "Name", "Price", "Discount", "Since",
                                            "Active", "Updated"],
                   ["A-1", "Widget", 0.1 + 0.2, 0.15, datetime.date(2026, 1, 5), True,
                    datetime.datetime(2026, 2, 1, 13, 30)],
                   ["A-2", "Gadget", 12.0, None, None, False, None, None, None]],
        "Suppliers": [["Supplier", "Terms"], ["Acme", "30 days"]],
        "Margins": [["SKU", "Margin"], ["A-1", 0.4]]}, hidden=("Margins",),
        formats={("Prices", "D4"): "0%"})
    doc = parse_file(f)
    assert doc.title == "catalogue"
    assert [s.heading_path for s in doc.sections] == [("Prices", "rows 1–5"),
                                                      ("Suppliers", "rows 2–2")]
    assert kinds(doc) == [
        ("paragraph", "Price list 2026"),  # a title above the header
        ("table_row", "- SKU: A-1; Name: Widget; Price: 0.3; Discount: 15%; "
                      "Since: 2026-01-05; Active: TRUE; Updated: 2026-02-01 13:30"),
        ("table_row", "- SKU: A-2; Name: Gadget; Price: 12; Active: FALSE"),
        ("table_row", "- Supplier: Acme; Terms: 30 days")]
    assert [(d.kind.value, d.why, d.text) for d in doc.dropped] == [
        ("hidden", "hidden sheet", "Margins")]  # left out, and recorded


def test_tables_side_by_side_and_one_below_another_are_read_apart(tmp_path: Path) -> None:
    """A carrier table beside the sites table was read as one table: "Which carrier does the
    Hamburg site use?" was answered with an invented link."""
    f = _workbook(tmp_path / "ops.xlsx", {"Sites": [
        ["Site", "City", None, "Carrier", "Cut-off"],
        ["WH-01", "Hamburg", None, "DHL Freight", "16:00"],
        ["WH-02", "Leipzig", None, "Schenker", "15:30"],
        [], ["Forklift fleet"], ["Unit", "Site", "Next inspection"],
        ["FL-7", "WH-01", "2026-03-12"]]})
    doc = parse_file(f)
    assert [s.heading_path for s in doc.sections] == [
        ("Sites", "columns A–B", "rows 2–3"), ("Sites", "columns D–E", "rows 2–3"),
        ("Sites", "rows 5–7")]
    assert kinds(doc) == [
        ("table_row", "- Site: WH-01; City: Hamburg"),
        ("table_row", "- Site: WH-02; City: Leipzig"),
        ("table_row", "- Carrier: DHL Freight; Cut-off: 16:00"),
        ("table_row", "- Carrier: Schenker; Cut-off: 15:30"),
        ("paragraph", "Forklift fleet"),
        ("table_row", "- Unit: FL-7; Site: WH-01; Next inspection: 2026-03-12")]


def test_a_label_row_within_a_table_is_no_new_table(tmp_path: Path) -> None:
    """"Europe" above its countries: a one-cell row after an empty row that a row of values,
    not a header of text, follows (it read France as a header and lost Japan)."""
    f = _workbook(tmp_path / "countries.xlsx", {"Countries": [
        ["Country", "Capital", "Population (m)"], [], ["Europe"], ["France", "Paris", 67],
        ["Germany", "Berlin", 83], [], ["Asia"], ["Japan", "Tokyo", 125]]})
    assert kinds(parse_file(f)) == [
        ("paragraph", "Europe"), ("table_row", "- Country: France; Capital: Paris; "
                                               "Population (m): 67"),
        ("table_row", "- Country: Germany; Capital: Berlin; Population (m): 83"),
        ("paragraph", "Asia"), ("table_row", "- Country: Japan; Capital: Tokyo; "
                                             "Population (m): 125")]


def test_a_merged_header_cell_keeps_one_table_and_titles_are_no_header(
        tmp_path: Path) -> None:
    def merge(path: Path) -> None:
        openpyxl = pytest.importorskip("openpyxl")
        book = openpyxl.load_workbook(path)
        book["People"].merge_cells("B1:C1")
        book.save(path)

    f = _workbook(tmp_path / "people.xlsx", {"People": [
        ["Name", "Address", None, "Phone", "Mobile"],
        ["Bo", "Main St 1", "Springfield", "555", "0170"]]})
    merge(f)
    assert [s.heading_path for s in parse_file(f).sections] == [("People", "rows 2–2")]
    listed = _workbook(tmp_path / "list.xlsx", {"List": [["Name", "Phone"], ["Bo", "555"]]})
    assert parse_file(listed).sections[0].heading_path == ("List", "rows 2–2")  # a real name
    g = _workbook(tmp_path / "ops.xlsx", {"Ops": [
        ["Sites", None, None, "Carriers"], ["Site", "City", None, "Carrier", "Cut-off"],
        ["WH-01", "Hamburg", None, "DHL", "16:00"]]})
    assert kinds(parse_file(g))[:2] == [("paragraph", "Sites Carriers"),
                                        ("table_row", "- Site: WH-01; City: Hamburg")]


def test_a_sheet_s_stated_size_and_first_row_do_not_cut_or_shift_it(tmp_path: Path) -> None:
    import io
    import re
    import zipfile

    openpyxl = pytest.importorskip("openpyxl")
    f = _workbook(tmp_path / "stock.xlsx", {"Stock": [["SKU", "Name"]] + [
        [f"S-{i}", f"Item {i}"] for i in range(1, 8)]})
    source = zipfile.ZipFile(io.BytesIO(f.read_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:  # a program that writes the size as "A1"
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename.endswith("sheet1.xml"):
                data = re.sub(rb'<dimension ref="[^"]*"/>', b'<dimension ref="A1"/>', data)
            target.writestr(item, data)
    f.write_bytes(out.getvalue())
    doc = parse_file(f)
    assert [s.heading_path for s in doc.sections] == [("Stock", "rows 2–8")]
    assert len(doc.sections[0].blocks) == 7
    book = openpyxl.Workbook()
    book.active["A3"], book.active["B3"], book.active["A4"], book.active["B4"] = (
        "SKU", "Name", "S-1", "One")
    book.save(str(tmp_path / "low.xlsx"))
    assert [s.heading_path for s in parse_file(tmp_path / "low.xlsx").sections] == [
        ("rows 4–4",)]


def test_a_damaged_workbook_is_an_ingest_error(tmp_path: Path) -> None:
    import io
    import zipfile

    f = _workbook(tmp_path / "damaged.xlsx", {"Stock": [[f"S-{i}", f"Item {i}", i]
                                                        for i in range(300)]})
    raw = bytearray(f.read_bytes())
    info = zipfile.ZipFile(io.BytesIO(bytes(raw))).getinfo("xl/worksheets/sheet1.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for k in range(start + 20, start + 60):  # its compressed stream, garbled
        raw[k] ^= 0xFF
    f.write_bytes(bytes(raw))
    with pytest.raises(IngestError, match="not a readable Excel workbook"):
        list(parse_file(f).sections)


def test_a_cell_reads_with_the_decimals_and_zeros_its_format_shows(tmp_path: Path) -> None:
    import datetime

    f = _workbook(tmp_path / "office.xlsx", {"Sites": [
        ["Site", "ZIP", "Share", "Cost", "Opens", "Travel", "Ratio", "Delta", "Secret"],
        ["Dresden", 1097, 0.325537294563843, -1299.5, datetime.time(9, 30),
         datetime.timedelta(hours=30, minutes=15), 3.5, -5, 42]]},
        formats={("Sites", "B2"): "00000", ("Sites", "C2"): "0.0%",
                 ("Sites", "D2"): '"$"#,##0.00;[Red]-"$"#,##0.00', ("Sites", "E2"): "hh:mm",
                 ("Sites", "F2"): "[h]:mm", ("Sites", "G2"): "# ?/?",
                 ("Sites", "H2"): "0.00;[Red]-0.000", ("Sites", "I2"): ";;;"})
    assert kinds(parse_file(f)) == [("table_row", "- Site: Dresden; ZIP: 01097; Share: 32.6%; "
                                                  "Cost: -1299.50; Opens: 09:30; Travel: 30:15; "
                                                  "Ratio: 3.5; Delta: -5.000")]


def test_formulas_saved_without_their_values_are_counted_and_reported(tmp_path: Path) -> None:
    """openpyxl, pandas and the like write formulas without computing them: the cells read
    as empty, which a user is told (it was silent)."""
    f = _workbook(tmp_path / "budget.xlsx", {"Budget": [
        ["Item", "Q1", "Q2", "Total"], ["Travel", 100, 200, "=B2+C2"], ["Rent", 50, 50, "=B3+C3"]]})
    doc = parse_file(f)
    assert kinds(doc) == [("table_row", "- Item: Travel; Q1: 100; Q2: 200"),
                          ("table_row", "- Item: Rent; Q1: 50; Q2: 50")]
    assert [(d.kind.value, d.why, d.text) for d in doc.dropped] == [
        ("uncalculated_formulas", "2 formula cells without a saved value, read as empty: open "
                                  "and save the workbook in a spreadsheet program", "Budget")]


def test_a_formula_saved_as_an_empty_text_is_no_uncalculated_one(tmp_path: Path) -> None:
    """=IF(B2>500,"over","") saved by Excel holds an empty text, which reads as empty too:
    the workbook was calculated, and "open and save it" would be wrong advice."""
    import io
    import re
    import zipfile

    f = _workbook(tmp_path / "flags.xlsx", {"Budget": [
        ["Item", "Q1", "Flag"], ["Travel", 100, '=IF(B2>500,"over","")']]})
    source = zipfile.ZipFile(io.BytesIO(f.read_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:  # as Excel saves it: t="str", an empty value
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename.endswith("sheet1.xml"):
                data = re.sub(rb'<c r="C2"[^>]*>(<f>.*?</f>)(?:<v>[^<]*</v>)?</c>',
                              rb'<c r="C2" t="str">\1<v></v></c>', data)
            target.writestr(item, data)
    f.write_bytes(out.getvalue())
    assert parse_file(f).dropped == ()


def test_a_long_upload_name_is_no_server_error(pipe: Pipeline) -> None:
    name = "é" * 200 + ".csv"  # 400 bytes: longer than a file name may be
    assert pipe.ingest_bytes(b"a,b\n1,2\n", source=name).added == [name]


def test_a_file_s_bytes_ingest_as_the_file_does(pipe: Pipeline, tmp_path: Path) -> None:
    f = _workbook(tmp_path / "prices.xlsx", {"Prices": [["SKU", "Price"], ["A-1", 12.5]]})
    report = pipe.ingest_bytes(f.read_bytes(), source="prices.xlsx")
    assert report.added == ["prices.xlsx"]
    assert pipe.ingest_bytes(f.read_bytes(), source="prices.xlsx").unchanged == ["prices.xlsx"]
    assert pipe.ask("What is the price of A-1?").answered
    with pytest.raises(IngestError, match=r"broken\.docx: not a readable Word file") as caught:
        pipe.ingest_bytes(b"PK\x03\x04 nothing", source="broken.docx")
    assert "abstain-upload" not in str(caught.value)  # no temporary path of the server's


def test_a_hidden_sheet_never_answers(pipe: Pipeline, tmp_path: Path) -> None:
    f = _workbook(tmp_path / "prices.xlsx", {
        "Prices": [["SKU", "Name", "Price"], ["A-1", "Widget", 12.5]],
        "Margins": [["SKU", "Internal margin"], ["A-1", "41 percent"]]}, hidden=("Margins",))
    report = pipe.ingest([f])
    assert report.added == [str(f)]
    answer = pipe.ask("What is the internal margin of A-1?")
    assert not answer.answered
    assert all("41 percent" not in e.text for e in answer.evidence)
    assert pipe.ask("What is the price of A-1?").answered


def test_a_one_sheet_workbook_reads_as_its_csv_does(tmp_path: Path) -> None:
    rows = [["supplier", "country", "terms"], ["Acme", "DE", "30 days"], ["Globex", "FR", None]]
    sheet = parse_file(_workbook(tmp_path / "suppliers.xlsx", {"Sheet1": rows}))
    (tmp_path / "suppliers.csv").write_text("supplier,country,terms\nAcme,DE,30 days\n"
                                            "Globex,FR,\n")
    table = parse_file(tmp_path / "suppliers.csv")
    assert kinds(sheet) == kinds(table)
    assert [s.heading_path for s in sheet.sections] == [("rows 2–3",)]  # no "Sheet1"


def test_a_large_sheet_is_read_as_a_stream_on_every_pass(tmp_path: Path) -> None:
    rows: list[list[object]] = [["sku", "name", "price"]]
    rows += [[f"SKU-{i}", f"Widget {i}", i % 97 + 0.5] for i in range(1, 1001)]
    parsed = parse_file(_workbook(tmp_path / "big.xlsx", {"Stock": rows}))
    assert type(parsed.sections).__name__ == "SheetSections"  # re-read from disk each pass
    assert [s.heading_path[-1] for s in parsed.sections] == [
        "rows 2–201", "rows 202–401", "rows 402–601", "rows 602–801", "rows 802–1001"]
    assert len(parsed.sections) == 5 and parsed.sections[4].blocks[-1].text == (
        "- sku: SKU-1000; name: Widget 1000; price: 30.5")
    assert sum(1 for c in iter_chunks("d", parsed) if c.kind is ChunkKind.CHILD) > 5


def test_a_missing_extra_skips_the_file_with_the_pip_install(
        pipe: Pipeline, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_docutils(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("docutils"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_docutils)
    f = tmp_path / "a.rst"
    f.write_text(RST)
    report = pipe.ingest([f])
    assert report.skipped == [(str(f), "reading reStructuredText needs docutils, which is "
                                       "not installed; install it with: pip install "
                                       "'abstain[formats]'")]


def test_a_large_csv_is_parsed_and_chunked_as_a_stream(tmp_path: Path) -> None:
    f = tmp_path / "big.csv"
    with f.open("w") as out:
        out.write("sku,name,price\n")
        for i in range(40_000):
            out.write(f"SKU-{i},Widget number {i} in the catalogue,{i % 97}.50\n")
    size = f.stat().st_size
    tracemalloc.start()
    parsed = parse_file(f)
    n = sum(1 for c in iter_chunks("d", parsed) if c.kind is ChunkKind.CHILD)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert n > 1000
    assert peak < size / 4  # the rows are never all in memory at once


def test_parse_errors_are_ingest_errors(tmp_path: Path) -> None:
    f = tmp_path / "x.ipynb"
    f.write_text("[1, 2]")
    with pytest.raises(IngestError, match="not a Jupyter notebook"):
        parse_file(f)


def test_a_page_ingests_the_same_after_another_rest_reader_ran() -> None:
    """docutils' registry of roles and directives is global: the training data's reST reader
    (abstain.train.docrst) registers its own handlers for Sphinx's names, which must not change
    what a page ingests as."""
    from abstain.ingest.rst import parse_rst
    from abstain.train import docrst

    page = ("Periodic tasks\n==============\n\n.. py:function:: crontab(minute='*')\n\n"
            "    Run on a schedule. See :func:`~huey.crontab`.\n\n    .. note::\n"
            "        Tasks cannot run more often than once per minute.\n\n"
            ".. code-block:: python\n\n    crontab(minute='*/5')\n")
    before = parse_rst(page, fallback_title="t").text
    docrst.parse_rst(page, fallback_title="t")
    assert parse_rst(page, fallback_title="t").text == before
    assert "once per minute" in before and "crontab" in before


def test_rst_autodoc_directives_keep_the_name_and_the_text_written_under_them() -> None:
    doc = parse_string("API\n===\n\n.. autoclass:: queue.Worker\n   :members:\n\n"
                       "   Workers poll every 5 seconds.\n\n.. autofunction:: queue.run\n",
                       name="api.rst", fmt="rst")
    assert kinds(doc) == [("heading", "API"), ("paragraph", "queue.Worker"),
                          ("paragraph", "Workers poll every 5 seconds."),
                          ("paragraph", "queue.run")]
    conf = parse_string(".. confval:: worker_timeout\n   :type: int\n   :default: ``30``\n"
                        "   :noindex:\n\n   Seconds before a silent worker is restarted.\n",
                        name="conf.rst", fmt="rst")
    assert kinds(conf) == [("table_row", "- worker_timeout; type: int; default: 30"),
                           ("paragraph", "Seconds before a silent worker is restarted.")]
    unnamed = parse_string(".. conf::\n   :keys: interrupt_timeout\n   :default: 0.3\n\n"
                           "   Seconds to wait after SIGINT.\n", name="tox.rst", fmt="rst")
    assert kinds(unnamed)[0] == ("table_row", "- keys: interrupt_timeout; default: 0.3")


def test_markdown_admonitions_and_content_tabs_are_text_not_code() -> None:
    doc = parse_string(
        "# Setup\n\n!!! note \"Heads up\"\n\n    The cache is cleared on upgrade.\n\n"
        "    ```toml\n    dir = \"x\"\n    ```\n\n"
        "??? tip\n    Set `APP_DEBUG=1` to see requests.\n\n"
        "=== \"pip\"\n\n    Install with pip install app.\n\nBack at top level.\n\n"
        "Title two\n===\n\n    real indented code\n", name="a.md")
    assert kinds(doc) == [
        ("heading", "Setup"), ("paragraph", "Heads up:"),
        ("paragraph", "The cache is cleared on upgrade."), ("code", "```\ndir = \"x\"\n```"),
        ("paragraph", "Set APP_DEBUG=1 to see requests."),
        ("paragraph", "pip:"), ("paragraph", "Install with pip install app."),
        ("paragraph", "Back at top level."), ("heading", "Title two"),
        ("code", "```\nreal indented code\n```")]


def test_rst_changelog_release_role_keeps_the_date() -> None:
    doc = parse_string("Changelog\n=========\n\n- :release:`2.4.0 <2018-01-22>`\n- :bug:`12` Fixed "
                       "a hang.\n", name="changelog.rst", fmt="rst")
    assert ("list_item", "- 2.4.0 (2018-01-22)") in kinds(doc)


def test_html_blocks_in_markdown_are_read_as_html_not_dropped() -> None:
    doc = parse_string(
        "# Options\n\n<!-- md:default none -->\n\n<dl>\n<dt><code>-p</code> <em>spec</em></dt>\n"
        "<dd>Build only the specified packages.</dd>\n</dl>\n\n<table><tr><th>Flag</th>"
        "<th>Meaning</th></tr><tr><td>-v</td><td>verbose</td></tr></table>\n\n"
        "<p style=\"display:none\">stuffed keywords</p>\n\nAfter.\n", name="o.md")
    assert kinds(doc) == [("heading", "Options"),
                          ("definition", "- -p spec: Build only the specified packages."),
                          ("table_row", "- Flag: -v; Meaning: verbose"), ("paragraph", "After.")]
    assert [d.text for d in doc.dropped] == ["stuffed keywords"]


def test_a_deeply_nested_markdown_list_keeps_its_deepest_items(tmp_path: Path) -> None:
    """Found by a newcomer: markdown-it's CommonMark preset follows 20 levels of block
    nesting (about ten list levels) and dropped what lay deeper, without a word."""
    f = tmp_path / "deep.md"
    f.write_text("# Deep\n\n" + "".join("  " * i + f"- level {i} quokka{i}\n" for i in range(40)))
    text = " ".join(b.text for s in parse_file(f).sections for b in s.blocks)
    assert "quokka25" in text and "quokka39" in text


def test_hugo_shortcodes_are_read_as_what_they_mark() -> None:
    """Found on kind's known issues (a Hugo site): ``{{< codeFromInline lang="bash" >}}``
    blocks were quoted as running text, braces and all. A code shortcode is a code block,
    another on a line of its own a break (or its title), one inside a fence stays."""
    md = parse_string(
        '# Skew\n\nCheck your version by running:\n{{< codeFromInline lang="bash" >}}\n'
        'kubectl version\n{{< /codeFromInline >}}\n\n{{% alert title="Warning" %}}\nDo not '
        'mix versions.\n{{% /alert %}}\n\n{{< tabs >}}\n{{< tab "Linux" >}}\nRun it.\n'
        '{{< /tab >}}\n{{< /tabs >}}\n\n```\n{{< note >}}\n```\n', name="k.md")
    assert kinds(md) == [
        ("heading", "Skew"), ("paragraph", "Check your version by running:"),
        ("code", "```\nkubectl version\n```"), ("paragraph", "Warning:"),
        ("paragraph", "Do not mix versions."), ("paragraph", "Run it."),
        ("code", "```\n{{< note >}}\n```")]
    # one never closed is a break, not the start of a block that swallows the page; one
    # closed on its code's last line ends there (found in review)
    lone = parse_string('# A\n\n{{< code file="x.go" >}}\n\n## Next\n\nText after.\n\n'
                        '{{< highlight go >}}\nfunc main() {\n}{{< /highlight >}}\n\nEnd.\n',
                        name="l.md")
    assert kinds(lone)[1:] == [("heading", "Next"), ("paragraph", "Text after."),
                               ("code", "```\nfunc main() {\n}\n```"), ("paragraph", "End.")]


def test_an_unresolved_rst_substitution_or_reference_keeps_its_text(tmp_path: Path) -> None:
    """Found on dramatiq's guide: ``|StubBroker|`` is defined in a ``global.rst`` Sphinx
    includes, and "Dramatiq provides a |StubBroker| that …" was read as "provides a that"."""
    f = tmp_path / "guide.rst"
    f.write_text("Guide\n=====\n\nDramatiq provides a |StubBroker| for tests, see `the "
                 "docs`_.\n", encoding="utf-8")
    assert kinds(parse_file(f))[1] == (
        "paragraph", "Dramatiq provides a StubBroker for tests, see the docs.")


def test_a_directive_s_argument_reads_its_roles_and_a_label_shows_its_title(
        tmp_path: Path) -> None:
    """Found on litestar's pages: a ``deprecated`` whose text runs on from its line, and a
    ``seealso`` written on its line, kept their roles as markup; a reference to a title that
    holds a role showed the role; an ``autosectionlabel`` reference shows the title."""
    (tmp_path / "splash.rst").write_text(".. _splash:\n\nThe :mod:`pyi_splash` Module\n"
                                         "===========================\n\nText.\n",
                                         encoding="utf-8")
    page = tmp_path / "di.rst"
    page.write_text(
        "DI\n==\n\n.. deprecated:: 2.24\n    Relying on names emits a\n"
        "    :class:`~.exceptions.LitestarDeprecationWarning` (see\n"
        "    :ref:`usage/di:Marking dependencies`).\n\n.. seealso:: :doc:`/topics/explicit`"
        "\n\nSee :ref:`splash` and `this issue <https://example.com/1>`_.\n",
        encoding="utf-8")
    assert [t for _, t in kinds(parse_file(page))[1:]] == [
        "Deprecated since version 2.24: Relying on names emits a "
        "LitestarDeprecationWarning (see Marking dependencies).",
        "/topics/explicit", "See The pyi_splash Module and this issue."]


def test_a_paragraph_that_ends_on_a_word_before_a_list_is_its_lead_in() -> None:
    """dramatiq: "…, you can pass" and then the list of what may be passed. Read as a lead-in
    (with its colon), it is quoted with its list."""
    md = parse_string("# HA\n\nWith a cluster, you can pass\n\n- a sequence of parameters\n"
                      "- a connection URL\n\nDone.\n\n- not a lead.\n", name="a.md")
    assert kinds(md)[1:4] == [
        ("paragraph", "With a cluster, you can pass:"),
        ("list_item", "- a sequence of parameters"), ("list_item", "- a connection URL")]
    assert md.sections[0].blocks[2].lead == "With a cluster, you can pass:"
    assert kinds(md)[4] == ("paragraph", "Done.")
    link = parse_string("# D\n\nDownload from https://example.com/dl\n\n- linux\n", name="d.md")
    assert kinds(link)[1] == ("paragraph", "Download from https://example.com/dl")


def test_myst_roles_are_what_sphinx_shows() -> None:
    """Found on cattrs' and llm's pages (MyST, Sphinx's Markdown): "{meth}`encoder
    <cattrs.Converter.encoder>`" was indexed and quoted braces, target and all."""
    md = parse_string(
        "# Hooks\n\nChange the {meth}`encoder <cattrs.Converter.encoder>` attribute, see "
        "{ref}`debugging hooks <tools-debug>` and {func}`~cattrs.structure` ({pr}`123`, "
        "{user}`hynek`, {pep}`8`).\n\nA `{foo}` span and ${x}`y` stay.\n\n```\n{ref}`kept`\n"
        "```\n", name="h.md")
    assert kinds(md)[1:] == [
        ("paragraph", "Change the encoder attribute, see debugging hooks and structure (#123, "
                      "@hynek, PEP 8)."),
        ("paragraph", "A {foo} span and ${x}y stay."), ("code", "```\n{ref}`kept`\n```")]


def test_a_fence_closes_only_on_its_own_kind() -> None:
    """Docs that teach Markdown show a ```` ``` ```` example inside a four-backtick (or
    ``~~~``) block. Each pass over a page's lines toggled "fenced" on any fence, so the
    example's own fences flipped it: a MyST role, an admonition marker or a closed HTML
    line after them inside the block was rewritten as text, and the first line after the
    block was taken for code."""
    md = parse_string(
        "# Write\n\n````markdown\n```python\nx = 1\n```\n{ref}`kept`\n!!! note \"Kept\"\n"
        "    kept too\n````\n\nAfter {ref}`the block <b>`.\n\n~~~\n```\n~~~\n\n"
        "!!! tip \"Tilde\"\n    Its text.\n", name="w.md")
    assert kinds(md)[1:] == [
        ("code", "```\n'''python\nx = 1\n'''\n{ref}`kept`\n!!! note \"Kept\"\n    kept too"
                 "\n```"),
        ("paragraph", "After the block."), ("code", "```\n'''\n```"),
        ("paragraph", "Tilde:"), ("paragraph", "Its text.")]


def test_a_fence_indented_under_a_block_and_a_code_span_stay_as_written() -> None:
    """Material for MkDocs shows a content tab inside a ```` ``` ```` block, its code
    indented four spaces under the tab: that indented ```` ``` ```` closes nothing. Nushell's
    book writes "`help {command}` or `{command} -h`", which holds no MyST role; pip-tools'
    changelog a code span running on to the next line before "({pr}`570`)"."""
    md = parse_string(
        "# Tabs\n\n``` title=\"Tabs\"\n=== \"C\"\n\n    ``` c\n    int x;\n    ```\n```\n\n"
        "See `help {command}` or `{command} -h`.\n\n- Fixed, raising `TypeError a\n  b` "
        "({pr}`570`).\n", name="t.md")
    assert kinds(md)[1:] == [
        ("code", "```\n=== \"C\"\n\n    ''' c\n    int x;\n    '''\n```"),
        ("paragraph", "See help {command} or {command} -h."),
        ("list_item", "- Fixed, raising TypeError a b (#570).")]


def test_mdx_module_statements_and_comments_are_left_out_and_a_tab_is_titled() -> None:
    """Found on Jest's, Prettier's and Express's pages (MDX, Docusaurus and Astro write it;
    the question writers saved them as .md): "import Tabs from '@theme/Tabs';" was indexed as
    a paragraph and a `{/* comment */}` quoted, and each tab's code lost its name. In code
    (a block or a span) nothing is taken out."""
    md = parse_string(
        "---\ntitle: Install\n---\nimport Tabs from '@theme/Tabs';\nimport {\n  TabItem,\n} from "
        "'@theme/TabItem';\nexport const meta = {\n  a: 1,\n};\n\n# Install\n\n{/* hidden */}\n"
        "Use `module.exports = {/* config */}` here.\n\n<Tabs>\n  <TabItem value=\"yarn\" "
        "label=\"Yarn\">\n\n```bash\nyarn add foo\nimport x from 'y';\n```\n\n  </TabItem>\n"
        "</Tabs>\n\nimport the module and go.\n", name="install.mdx")
    assert md.title == "Install"
    assert kinds(md)[1:] == [
        ("paragraph", "Use module.exports = {/* config */} here."), ("paragraph", "Yarn:"),
        ("code", "```\nyarn add foo\nimport x from 'y';\n```"),
        ("paragraph", "import the module and go.")]


def test_an_mdx_statement_stands_only_at_a_block_start() -> None:
    """A review's cases: a wrapped line of a paragraph that starts with "import" is text;
    an exported function holding a blank line is left out whole; a tab without a label is
    named by its value."""
    md = parse_string(
        "# P\n\nThe statement\nimport { foo } from \"bar\" loads it.\n\nexport function Hi() {\n"
        "  const a = 1;\n\n  return a;\n}\n\n<TabItem value=\"yarn\">\n\nUse yarn.\n",
        name="p.mdx")
    assert kinds(md)[1:] == [
        ("paragraph", 'The statement import { foo } from "bar" loads it.'),
        ("paragraph", "yarn:"), ("paragraph", "Use yarn.")]


def test_markdown_inside_an_mdx_component_or_details_is_read_as_markdown() -> None:
    """A newcomer's Docusaurus pages: an ``<Admonition title="…">`` lost its title and its
    code span ("`skyport rollback --to <release-id>`" quoted as "--to `"), ``<details>``
    text read as raw HTML, and ``:::info[Dry runs]`` kept its brackets."""
    md = parse_string(
        "# Deploys\n\n<Admonition type=\"danger\" title=\"Rollbacks are not atomic\">\n"
        "Run `skyport rollback --to <release-id>` first.\n</Admonition>\n\n:::info[Dry runs]\n"
        "Use `--dry-run`.\n:::\n\n<details>\n<summary>Proxies</summary>\n\nSkyport does not "
        "read ALL_PROXY.\n\n</details>\n", name="d.mdx")
    assert kinds(md)[1:] == [
        ("paragraph", "Rollbacks are not atomic:"),
        ("paragraph", "Run skyport rollback --to <release-id> first."),
        ("paragraph", "Dry runs:"), ("paragraph", "Use --dry-run."),
        ("paragraph", "Proxies:"), ("paragraph", "Skyport does not read ALL_PROXY.")]


def test_myst_definition_lists_and_directives_are_what_they_say() -> None:
    """Found by a newcomer on structlog's pages: "`RichTracebackFormatter`" / ": It's the
    default if Rich is installed." was one paragraph, the fact cut from its subject, and
    ``:::{deprecated} 26.1.0`` was quoted as written. A definition list's entry is a
    definition; a directive reads as its reST twin; Docusaurus' ``:::tip`` is text; an R
    Markdown chunk ```` ```{r} ```` stays code."""
    md = parse_string(
        "# Exceptions\n\n`RichTracebackFormatter`\n: Passes arguments to Rich.\n  It's the "
        "default if Rich is installed.\n\n:::{deprecated} 26.1.0\nUse Rich instead.\n:::\n\n"
        "```{note}\nA MyST note.\n```\n\n:::tip Pro tip\nUse **bold**.\n:::\n\n```{toctree}\n"
        "a\n```\n\n```{r}\nx <- 1\n```\n", name="e.md")
    assert kinds(md)[1:] == [
        ("definition", "- RichTracebackFormatter: Passes arguments to Rich. It's the default "
                       "if Rich is installed."),
        ("paragraph", "Deprecated since version 26.1.0: Use Rich instead."),
        ("paragraph", "A MyST note."), ("paragraph", "Pro tip:"), ("paragraph", "Use bold."),
        ("code", "```\nx <- 1\n```")]


def test_a_hugo_shortcode_within_a_line_is_what_it_quotes() -> None:
    """goreleaser marks when a field arrived with ``{{< g_inline_version "v2.17" >}}``, in
    text and in YAML comments alike (Hugo fills shortcodes in inside code too)."""
    md = parse_string('# Go\n\n{{< g_inline_version "v2.15" >}} Set `main: ./...` to build. '
                      'Go {{< param minGoVers >}}+ works.\n\n```yaml\n# {{< g_inline_version '
                      '"v2.4" >}}\ngoarm64: v8.0\n```\n', name="go.md")
    assert kinds(md)[1:] == [("paragraph", "v2.15 Set main: ./... to build. Go + works."),
                             ("code", "```\n# v2.4\ngoarm64: v8.0\n```")]
