"""Which files an ingest reads, and the source (identity) each one gets.

A file's document is identified by (workspace, collection root, path relative to
the root). The root is the folder named on the command line, resolved (symlinks,
``..`` and the working directory removed); a file named on its own has its folder
as root. The stored source is the root joined with the relative path, so
``abstain ingest docs`` from ``/p1`` and ``abstain ingest /p1/docs`` name the same
documents, and ``/p1/docs/a.md`` and ``/p2/docs/a.md`` are two.

Symlinks are followed while they stay inside the root; one that leads out of it is
skipped and reported unless ``follow_symlinks`` is set, and then the document is
named by the link's own path under the root.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from abstain.errors import InputError
from abstain.stores.base import DocumentInfo

OUTSIDE_ROOT = "symlink leads outside {root} (to {target}); use --follow-symlinks to ingest it"


@dataclass(frozen=True, slots=True)
class FileSource:
    source: str
    """The document's identity in its workspace: ``root / relative`` as a string."""
    path: Path
    """Where to read it (the resolved target)."""
    root: Path
    """The resolved collection root."""


@dataclass(frozen=True, slots=True)
class Skip:
    source: str
    reason: str
    folder: bool = False
    """A folder that could not be listed: what it held is unknown, not gone."""


def check_paths_exist(paths: Iterable[str | Path]) -> None:
    """Raise :class:`InputError` naming every path that does not exist (nothing is read)."""
    missing = [str(p) for p in paths if not os.path.lexists(os.path.expanduser(p))]
    if missing:
        raise InputError(f"no such file or directory: {', '.join(missing)}; nothing was "
                         "ingested")


def iter_sources(paths: Iterable[str | Path], *, follow_symlinks: bool = False
                 ) -> Iterator[FileSource | Skip]:
    """Each file under ``paths`` once, in sorted order, or the reason it is skipped."""
    seen: set[str] = set()
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            root = path.resolve()
            items: Iterable[FileSource | Skip] = _walk(root, follow_symlinks)
        else:
            root = path.absolute().parent.resolve()
            items = [_one(root, root / path.name, follow_symlinks)]
        for item in items:
            if item.source not in seen:
                seen.add(item.source)
                yield item


def roots(paths: Iterable[str | Path]) -> list[Path]:
    """The resolved folders among ``paths`` (what ``--prune`` syncs)."""
    return [Path(p).expanduser().resolve() for p in paths if Path(p).expanduser().is_dir()]


_NOT_DOCUMENTS = (".", "~$")
"""How the names of files a folder holds but no one wrote begin: hidden files, and the lock
files Office leaves beside an open document (``~$budget.xlsx``)."""


def _walk(root: Path, follow_symlinks: bool) -> Iterator[FileSource | Skip]:
    visited = {root}
    unreadable: list[OSError] = []  # a folder os.walk cannot list is reported, not dropped

    def skipped_folders() -> Iterator[Skip]:
        while unreadable:
            error = unreadable.pop(0)
            yield Skip(str(error.filename), f"cannot read folder: {error.strerror or error}",
                       folder=True)

    for folder, dirs, files in os.walk(root, followlinks=follow_symlinks,
                                       onerror=unreadable.append):
        yield from skipped_folders()
        here = Path(folder)
        kept = []
        for name in sorted(dirs):
            sub = here / name
            if name.startswith("."):
                continue
            try:
                linked = sub.is_symlink()
            except OSError as exc:  # listed, but its parent cannot be entered
                yield Skip(str(sub), f"cannot read folder: {exc.strerror or exc}", folder=True)
                continue
            if linked:
                target = sub.resolve()
                if target.is_relative_to(root):
                    continue  # walked under its real path
                if not follow_symlinks:
                    yield Skip(str(sub), OUTSIDE_ROOT.format(root=root, target=target))
                    continue
                if target in visited or root.is_relative_to(target):
                    continue  # a loop
                visited.add(target)
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if not name.startswith(_NOT_DOCUMENTS):
                try:
                    yield _one(root, here / name, follow_symlinks)
                except OSError as exc:  # a folder that lists but cannot be entered (mode 600)
                    yield Skip(str(here / name), f"cannot read: {exc.strerror or exc}")
    yield from skipped_folders()


def _one(root: Path, path: Path, follow_symlinks: bool) -> FileSource | Skip:
    """``path`` lies under ``root`` as walked; name it by its real place when that is
    inside the root too (so two spellings of one file are one document)."""
    target = path.resolve()
    if path.is_symlink() and not target.exists():
        return Skip(str(path), f"broken symlink: its target {target} does not exist")
    if target.is_relative_to(root):
        return FileSource(str(target), target, root)
    if follow_symlinks:
        return FileSource(str(path), target, root)
    return Skip(str(path), OUTSIDE_ROOT.format(root=root, target=target))


def named(documents: Iterable[DocumentInfo], name: str) -> list[DocumentInfo]:
    """The documents ``name`` names: by id, by stored source, or by a path spelt any way
    that resolves to a file's source (``docs/a.md`` from its folder)."""
    spelt = {name}
    if name and not name.startswith(("http://", "https://")):
        spelt.add(str(Path(name).expanduser().absolute()))
        with contextlib.suppress(OSError, RuntimeError):  # a symlink loop
            spelt.add(str(Path(name).expanduser().resolve()))
    return [d for d in documents if d.id in spelt or d.source in spelt]
