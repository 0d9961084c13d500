"""docs/SCHEMA.md's tables of refusal reasons and checks say what the code names."""

from __future__ import annotations

import re
from pathlib import Path

from abstain.gate import CHECKS, SETTLED_WITHOUT_READING, WAIVABLE
from abstain.records import CheckName, RefusalReason

SCHEMA = Path(__file__).parents[1] / "docs" / "SCHEMA.md"


def _tables(heading: str) -> list[list[list[str]]]:
    """The tables of one ``## heading`` section: rows (header and rule left out) of cells."""
    section = SCHEMA.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    tables: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*section.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif rows:
            tables.append(rows[2:])
            rows = []
    return tables


def _codes(cell: str) -> list[str]:
    return re.findall(r"`([a-z_]+)`", cell)


def test_the_reasons_table_lists_every_refusal_reason_once() -> None:
    (table,) = _tables("Refusal reasons")
    listed = [_codes(row[0])[0] for row in table if not row[0].startswith("`rule:")]
    assert sorted(listed) == sorted(RefusalReason)
    assert len(listed) == len(set(listed))


def test_the_check_tables_list_every_check_and_the_gate_table_in_order() -> None:
    gate_table, other_table = _tables("Checks")
    gate = [_codes(row[0])[0] for row in gate_table]
    others = [_codes(row[0])[0] for row in other_table]
    assert sorted(gate + others) == sorted(CheckName)
    in_order = [c.value for c in CheckName if c.value in gate]
    assert gate == in_order  # CheckName lists the gate's checks in the order they run


def test_each_check_refuses_with_reasons_the_enum_knows() -> None:
    gate_table, other_table = _tables("Checks")
    for row in [*gate_table, *other_table]:
        assert set(_codes(row[-1])) <= set(RefusalReason), row



def test_the_gate_table_is_the_gates_own_table_of_checks() -> None:
    gate_table, _ = _tables("Checks")
    rows = [(_codes(row[0])[0], _codes(row[-1])) for row in gate_table]
    assert rows == [(c.name.value, [r.value for r in c.reasons]) for c in CHECKS]


def test_the_reading_sets_come_from_the_table() -> None:
    waivable = {"term_coverage", "informative_coverage", "passage_coverage", "answer_type"}
    settled = {"evidence", "best_distance", "answer_gate", "entity_existence", "top_ratio"}
    assert (set(WAIVABLE), set(SETTLED_WITHOUT_READING)) == (waivable, settled)
