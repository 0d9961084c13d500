"""Regenerate docs/CLI.md from the real --help output (a test checks it is current).

    python scripts/gen_cli_docs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
HEADER = """# Command line reference

Generated from `abstain … --help` by `scripts/gen_cli_docs.py`; do not edit by hand.

## Output schemas

`abstain search --json` prints:

```json
{"question": "…",
 "hits": [{"source": "the document's source (a file's resolved path)", "title": "…", "chunk_id": "…", "parent_id": "…",
           "heading_path": ["…"], "text": "…",
           "vector_rank": 1, "vector_distance": 0.31, "keyword_rank": 2, "keyword_score": 7.9,
           "fused_score": 0.0325, "in_both": true, "curated": false,
           "confidence": null, "rerank_score": null}]}
```

Ranks are 1-based and `null` when that arm did not find the hit; `vector_distance` is the
cosine distance (lower is better), `keyword_score` the BM25 score (higher is better),
`fused_score` the Reciprocal Rank Fusion score (k = 60). `abstain ask --json` is described
in [SCHEMA.md](SCHEMA.md).

## Configuration file

`ask`, `serve` and `config show` read `abstain.toml` (`--config FILE`, else
`ABSTAIN_CONFIG`, else `./abstain.toml` when present). Its keys are the options of
`ask`: `store`, `replicas`, `workspace`, `preset`, `calibration`, `answer_confidence`,
`embedder`, `llm`, `llm_model`, `llm_timeout`, `strictness`, `reader`, `rewrite`, `llm_rerank`;
`[workspaces.NAME]` tables override them per workspace. A flag beats an environment
variable, which beats the file, which beats the default; `abstain config show` prints each
value's origin. Every other command that touches a store (`ingest`, `docs`, `search`,
`log`, `eval`, `calibrate`, `vocab` …) uses the file's `store` when neither `--db` /
`--store` nor `ABSTAIN_DB` / `ABSTAIN_STORE` names one, so one project folder has one
store. Example in [SERVER.md](SERVER.md#configuration-abstaintoml).

## Exit codes

`0`: the command ran. For `ask` that includes a refusal, whose reason is part of the
result (an empty or unreadable question is refused `invalid_question`): a script tells an
answer from a refusal by `"answered"` in `abstain ask --json`. `1`: an error the command
names (a store that does not exist or is not a store, a file that cannot be read, a bad
configuration), with what to do. `2`: the command line itself is wrong (an unknown option, a
missing argument).

"""


def generate() -> str:
    from abstain.cli import cli

    parts = [HEADER]

    def walk(group: click.Group, prefix: list[str]) -> None:
        for name in sorted(group.commands):
            command = group.commands[name]
            path = [*prefix, name]
            result = CliRunner().invoke(cli, [*path, "--help"], prog_name="abstain",
                                        terminal_width=100)
            parts.append(f"## abstain {' '.join(path)}\n\n```\n{result.output.rstrip()}\n```\n")
            if isinstance(command, click.Group):
                walk(command, path)

    top = CliRunner().invoke(cli, ["--help"], prog_name="abstain", terminal_width=100)
    parts.append(f"## abstain\n\n```\n{top.output.rstrip()}\n```\n")
    walk(cli, [])
    return "\n".join(parts)


if __name__ == "__main__":
    text = generate()
    target = ROOT / "docs" / "CLI.md"
    if "--check" in sys.argv:
        sys.exit(0 if target.exists() and target.read_text() == text else 1)
    target.write_text(text)
    print(f"wrote {target}")
