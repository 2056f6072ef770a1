"""The language server, spoken to over stdio as an editor would: diagnostics,
hover, go-to-definition into the series, completion."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from muster.scaffold import new_battle

pytest.importorskip("pygls")


class Client:
    """A minimal LSP client: JSON-RPC messages framed with Content-Length."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "muster.cli", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None
            self.inbox.put(json.loads(out.read(length)))

    def send(self, method: str, params: Any, request: bool = True) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        ident = None
        if request:
            self.next_id += 1
            ident = message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        self.proc.stdin.flush()
        return ident

    def wait(self, match, timeout: float = 120) -> dict[str, Any]:
        while True:
            message = self.inbox.get(timeout=timeout)
            if match(message):
                return message

    def request(self, method: str, params: Any) -> Any:
        ident = self.send(method, params)
        return self.wait(lambda m: m.get("id") == ident)["result"]

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        message = self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            )
        )
        return message["params"]["diagnostics"]


def position_of(text: str, needle: str, offset: int = 1) -> dict[str, int]:
    for n, line in enumerate(text.splitlines()):
        if needle in line:
            return {"line": n, "character": line.index(needle) + offset}
    raise AssertionError(needle)


@pytest.fixture()
def client():
    c = Client()
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
    c.proc.wait(timeout=10)


def test_the_server_answers_over_stdio(tmp_path, client):
    folder = new_battle("mill_creek", tmp_path / "mill_creek")
    victory = (folder.folder / "victory.mst").resolve()
    forces = (folder.folder / "forces.mst").resolve()
    uri, forces_uri = victory.as_uri(), forces.as_uri()

    init = client.request(
        "initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
    )
    caps = init["capabilities"]
    assert caps["hoverProvider"] and caps["definitionProvider"] and caps["completionProvider"]
    client.send("initialized", {}, request=False)

    # Diagnostics as you type: an unsaved mistake is reported on its line.
    text = victory.read_text().replace("winner defender", "winner defendr")
    client.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "muster", "version": 1, "text": text}},
        request=False,
    )
    found = client.diagnostics(uri)
    assert len(found) == 1 and found[0]["code"] == "unknown-name"
    assert found[0]["range"]["start"]["line"] == position_of(text, "winner defendr")["line"]
    assert "did you mean 'defender'?" in found[0]["message"]

    # Fixing it clears the file's diagnostics.
    fixed = victory.read_text()
    client.send(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]},
        request=False,
    )
    assert client.diagnostics(uri) == []

    # Hover: kind, title, citation.
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": position_of(fixed, "crossroads", 2)},
    )
    value = hover["contents"]["value"]
    assert "**place** `crossroads`" in value and "The crossroads" in value
    assert "§ mill_creek 3.1" in value

    # Go to definition across the import, into the series.
    forces_text = forces.read_text()
    client.send(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": forces_uri,
                "languageId": "muster",
                "version": 1,
                "text": forces_text,
            }
        },
        request=False,
    )
    where = client.request(
        "textDocument/definition",
        {"textDocument": {"uri": forces_uri}, "position": position_of(forces_text, "infantry", 2)},
    )
    assert where["uri"].endswith("/rulesets/series/components.mst")
    series = Path(where["uri"].removeprefix("file://")).read_text().splitlines()
    assert series[where["range"]["start"]["line"]].startswith("unit_type infantry")

    # Completion: the names in scope, those the condition binds first.
    at = position_of(fixed, "when count(", 5)
    items = client.request(
        "textDocument/completion", {"textDocument": {"uri": uri}, "position": at}
    )["items"]
    labels = [i["label"] for i in items]
    assert {"crossroads", "attacker", "units_at", "army_morale"} <= set(labels)
    typed = client.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": position_of(fixed, "units_at", 2)},
    )["items"]
    assert typed and all(i["label"].startswith("u") for i in typed)
    assert "units_at" in [i["label"] for i in typed]

    client.request("shutdown", None)
    client.send("exit", None, request=False)
    assert client.proc.wait(timeout=30) == 0


def initialized(client: Client, root: Path) -> None:
    client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
    client.send("initialized", {}, request=False)


def test_a_malformed_header_costs_only_its_own_message(tmp_path, client):
    """After a header the server cannot read, the next well-formed message is
    answered: the reader finds its place again at the next `Content-Length:`."""
    initialized(client, tmp_path)
    assert client.proc.stdin is not None
    body = b'{"jsonrpc": "2.0", "id": 99, "method": "shutdown"}'
    for bad in (b"Content-Length: ten\r\n\r\n", b"Content-Length: 99999999999999\r\n\r\n"):
        client.proc.stdin.write(bad + body)
        client.proc.stdin.flush()
        # A request that the malformed one must not swallow.
        ident = client.send(
            "textDocument/hover",
            {
                "textDocument": {"uri": (tmp_path / "none.mst").as_uri()},
                "position": {"line": 0, "character": 0},
            },
        )
        answer = client.wait(lambda m, ident=ident: m.get("id") in (ident, 99), timeout=60)
        assert answer["id"] == ident and "error" not in answer, answer


def test_a_request_with_bad_params_is_answered_with_32602(tmp_path, client):
    initialized(client, tmp_path)
    ident = client.send("textDocument/hover", {"textDocument": {"uri": 5}})
    answer = client.wait(lambda m: m.get("id") == ident, timeout=60)
    assert answer["error"]["code"] == -32602
    # And the server goes on answering.
    assert client.request("shutdown", None) is None


def test_an_unsaved_buffer_is_checked_as_a_ruleset_of_its_own(tmp_path, client):
    initialized(client, tmp_path)
    uri = "untitled:Untitled-1"
    text = 'ruleset scratch "Scratch" § scratch 1 {\n  import series\n  bogus_key 3\n}\n'
    client.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "muster", "version": 1, "text": text}},
        request=False,
    )
    found = client.diagnostics(uri)
    assert found and found[0]["range"]["start"]["line"] in (0, 1, 2), found
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 2}},
    )
    assert hover is None or "contents" in hover
