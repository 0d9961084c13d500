"""Documentation of public projects as parsed pages, for the v3 reader's training data.

Each project is a git snapshot (a bare git directory, e.g. one the ``fetch`` tool brought under
``/work/.mirror/OWNER+NAME/repo``); its documentation files are read straight from the commit
(no work tree). Markdown and HTML go through abstain's own ingest parser
(:mod:`abstain.ingest.parse`), reStructuredText through docutils with Sphinx's common roles and
directives registered as plain ones (:mod:`abstain.train.docrst`).

The projects kept for evaluation (click, sqlite-utils, httpx, requests, flask, django,
fastapi, pydantic, rich, typer, pytest, numpy) are refused here, whatever the list says.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from abstain.ingest.blocks import ParsedDocument
from abstain.ingest.markup import parse_html, parse_markdown

EVALUATION_ONLY = frozenset({"click", "sqlite-utils", "httpx", "requests", "flask", "django",
                             "fastapi", "pydantic", "rich", "typer", "pytest", "numpy"})
"""Projects whose documentation is kept for evaluation: never training data."""
DOC_SUFFIXES = (".md", ".mdx", ".markdown", ".rst", ".html", ".htm")
MAX_FILE_BYTES = 400_000
MAX_FILES = 120
"""Documentation files read per project (the first in path order)."""
_SKIP = re.compile(r"(^|/)(tests?|testing|vendor|node_modules|third_party|\.github|fixtures|"
                   r"testdata|_build|locales?|translations?|i18n|ja|zh|zh-cn|ko|pt|es|fr|de|ru|"
                   r"it|uk|blog|_posts|_includes|_layouts|_templates|_static|_themes|"
                   r"benchmarks?)/", re.I)
_TOP = re.compile(r"^(readme|changelog|changes|history|news|faq|guide|usage|manual)[^/]*$", re.I)
_DOC_DIRS = ("docs/", "doc/", "documentation/", "website/docs/", "site/", "content/", "src/docs/")


@dataclass(frozen=True)
class Project:
    repo: str
    """``owner/name`` on GitHub."""
    kind: str
    """library, cli, service, framework, tool."""
    include: tuple[str, ...] = ()
    """Path prefixes to read (default: the usual documentation folders and top-level files)."""

    @property
    def name(self) -> str:
        return self.repo.split("/")[1].lower()


def _p(repo: str, kind: str, *include: str) -> Project:
    return Project(repo, kind, tuple(include))


PROJECTS = (
    _p("python-attrs/attrs", "library"), _p("marshmallow-code/marshmallow", "library"),
    _p("pallets/itsdangerous", "library"), _p("encode/starlette", "framework"),
    _p("encode/uvicorn", "service"), _p("BurntSushi/ripgrep", "cli"),
    _p("sharkdp/bat", "cli"), _p("jashkenas/underscore", "library", "index.html"),
    _p("jashkenas/backbone", "library", "index.html"), _p("Delgan/loguru", "library"),
    _p("hynek/structlog", "library"), _p("pypa/pipx", "cli"),
    _p("simonw/datasette", "service"), _p("simonw/llm", "cli"), _p("mkdocs/mkdocs", "tool"),
    _p("spf13/cobra", "library"), _p("urfave/cli", "library", "docs/v3/", "README.md"),
    _p("yargs/yargs", "library"), _p("tj/commander.js", "library"),
    _p("pallets/werkzeug", "library"), _p("pallets/jinja", "library"),
    _p("pallets/markupsafe", "library"), _p("benoitc/gunicorn", "service"),
    _p("jazzband/pip-tools", "cli"), _p("arrow-py/arrow", "library"),
    _p("more-itertools/more-itertools", "library"),
    _p("python-jsonschema/jsonschema", "library"), _p("Python-Markdown/markdown", "library"),
    _p("pypa/hatch", "cli"), _p("pdm-project/pdm", "cli"), _p("httpie/cli", "cli"),
    _p("aio-libs/aiohttp", "framework"), _p("pygments/pygments", "library"),
    _p("jashkenas/coffeescript", "tool", "documentation/sections/"),
    _p("requirejs/requirejs", "library", "docs/"),
    _p("expressjs/expressjs.com", "framework", "src/content/api/5x/", "src/content/pages/en/"),
    _p("prettier/prettier", "tool", "docs/"),
    _p("tox-dev/tox", "cli"), _p("psf/black", "cli"),
    _p("python-poetry/poetry", "cli"), _p("cli/cli", "cli"), _p("junegunn/fzf", "cli"),
    _p("sharkdp/fd", "cli"), _p("serde-rs/serde-rs.github.io", "library", "_src/"),
    _p("vitejs/vite", "tool", "docs/"), _p("redis/redis-doc", "service", "docs/"),
    _p("tqdm/tqdm", "library"), _p("python-humanize/humanize", "library"),
    _p("pallets/quart", "framework"), _p("encode/databases", "library"),
    _p("Textualize/textual", "framework", "docs/guide/", "docs/widgets/", "questions/",
       "FAQ.md"),
    _p("nodeca/js-yaml", "library"), _p("docopt/docopt", "library"), _p("casey/just", "cli"),
    _p("bottlepy/bottle", "framework"), _p("falconry/falcon", "framework"),
    _p("coleifer/peewee", "library"), _p("coleifer/huey", "service"),
    _p("mahmoud/boltons", "library"), _p("python-babel/babel", "library"),
    _p("scrapy/scrapy", "framework"), _p("minio/docs", "service", "source/"),
)
VALIDATION = frozenset({"marshmallow-code/marshmallow", "BurntSushi/ripgrep",
                        "jashkenas/backbone", "encode/uvicorn", "falconry/falcon",
                        "pdm-project/pdm", "spf13/cobra", "coleifer/huey"})
"""Held-out projects: a library, CLIs, an HTML page, a server, a framework, Go docs, a queue."""


@dataclass(frozen=True)
class Page:
    project: str
    path: str
    doc: ParsedDocument


@dataclass(frozen=True)
class Snapshot:
    project: Project
    commit: str
    licence: str
    pages: tuple[Page, ...]


def mirror_dir(root: Path, project: Project) -> Path:
    return root / project.repo.replace("/", "+") / "repo"


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True,
                          capture_output=True).stdout


def wanted(project: Project, path: str) -> bool:
    """Is ``path`` a documentation file of ``project`` worth reading?"""
    if not path.lower().endswith(DOC_SUFFIXES) or _SKIP.search("/" + path):
        return False
    if project.include:
        return any(path == p or (p.endswith("/") and path.startswith(p))
                   for p in project.include)
    return bool(_TOP.match(path)) or path.lower().startswith(_DOC_DIRS)


def read_snapshot(root: Path, project: Project) -> Snapshot:
    """The project's pages at its snapshot's HEAD, with the commit and the licence's name."""
    if project.name in EVALUATION_ONLY:
        raise ValueError(f"{project.repo} is kept for evaluation")
    git_dir = mirror_dir(root, project)
    commit = _git(git_dir, "rev-parse", "HEAD").decode().strip()
    listing = _git(git_dir, "ls-tree", "-r", "-l", "HEAD").decode("utf-8", "replace")
    files: list[tuple[str, str]] = []
    licence_blob = None
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, sha, size = meta.split()
        if kind != "blob" or not size.isdigit():  # "BAD": the blob is not in the snapshot
            continue
        if "/" not in path and re.match(r"(licen[cs]e|copying)", path, re.I) and not licence_blob:
            licence_blob = sha
        if int(size) <= MAX_FILE_BYTES and wanted(project, path):
            files.append((path, sha))
    files = sorted(files)[:MAX_FILES]
    pages = []
    for path, sha in files:
        try:
            text = _git(git_dir, "cat-file", "blob", sha).decode("utf-8", "replace")
        except subprocess.CalledProcessError:
            continue
        doc = parse_page(path, text)
        if doc is not None and doc.sections:
            pages.append(Page(project.repo, path, doc))
    licence = licence_name(_git(git_dir, "cat-file", "blob", licence_blob).decode(
        "utf-8", "replace")) if licence_blob else "unknown (no licence file at the root)"
    return Snapshot(project, commit, licence, tuple(pages))


def parse_page(path: str, text: str) -> ParsedDocument | None:
    stem = Path(path).stem
    suffix = Path(path).suffix.lower()
    try:
        if suffix in (".html", ".htm"):
            return parse_html(text, fallback_title=stem)
        if suffix == ".rst":
            from abstain.train.docrst import parse_rst

            return parse_rst(text, fallback_title=stem)
        return parse_markdown(_strip_templating(text), fallback_title=stem, source=path)
    except Exception:  # a page a parser cannot read is skipped, not fatal for the set
        return None


def _strip_templating(text: str) -> str:
    """Markdown of static-site generators: drop ``{% … %}`` / ``{{< … >}}`` tags and HTML
    comments, which would otherwise be read as prose."""
    text = re.sub(r"\{%.*?%\}|\{\{<.*?>\}\}|<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^(import|export) .*$", "", text, flags=re.M)  # MDX
    text = re.sub(r"\{[\w:.-]+\}`~?", "`", text)  # MyST roles: {func}`~pkg.name`
    return re.sub(r"^:::.*$|^\s*</?[A-Z][A-Za-z]*[^>]*>\s*$", "", text, flags=re.M)


_LICENCES = (
    ("CC0-1.0", r"cc0 1\.0"), ("Apache-2.0", r"apache license,?\s+version 2"),
    ("MIT", r"permission is hereby granted, free of charge"), ("BSD-3-Clause", r"neither the name"),
    ("BSD-2-Clause", r"redistributions in binary form"), ("Unlicense", r"unlicense"),
    ("CC-BY-SA-4.0", r"attribution-sharealike 4"), ("CC-BY-4.0", r"attribution 4\.0"),
    ("MPL-2.0", r"mozilla public license"), ("GPL", r"gnu general public license"),
)


def licence_name(text: str) -> str:
    folded = " ".join(text.lower().split())
    for name, pattern in _LICENCES:
        if re.search(pattern, folded):
            return name
    return "other (see the file)"


# caddyserver/website and pre-commit/pre-commit.com were read once and dropped: their
# repositories carry no licence file.


def snapshots(root: Path, projects: tuple[Project, ...] = PROJECTS) -> Iterator[Snapshot]:
    """Each project whose snapshot lies under ``root`` (others are skipped, with a line)."""
    for project in projects:
        if not mirror_dir(root, project).is_dir():
            print(f"skip {project.repo}: no snapshot under {root}", flush=True)
            continue
        yield read_snapshot(root, project)
