"""`abstain pg start` takes the port its data directory last ran on when it is free."""

from __future__ import annotations

import socket
from pathlib import Path

from abstain.stores import pg_embedded


def test_the_last_port_is_taken_again_only_while_it_is_free(tmp_path: Path) -> None:
    assert pg_embedded._last_port(tmp_path) is None  # never ran
    port = pg_embedded.free_port()
    (tmp_path / pg_embedded.PORT_FILE).write_text(f"{port}\n")
    assert pg_embedded._last_port(tmp_path) == port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        assert pg_embedded._last_port(tmp_path) is None
    (tmp_path / pg_embedded.PORT_FILE).write_text("not a port\n")
    assert pg_embedded._last_port(tmp_path) is None
