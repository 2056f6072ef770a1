"""The table's door: only its own page may drive it, and every request is bounded.

The table serves games whose hidden information is a player's secret, on a port of
the player's machine that any web page the player visits can try to reach. So,
before a request touches a game:

- its `Host` must be one of the table's own addresses (a page of another site
  whose name has been pointed at this machine, DNS rebinding, is refused);
- a request from a page (its `Origin`, or the browser's `Sec-Fetch-Site`) must
  come from the table's own page;
- a POST must say that it sends JSON (a cross-site form cannot), and its body
  must be small: `BODY_LIMIT` bytes, or `UPLOAD_LIMIT` where a save or a log is
  sent; deeper nesting than a save ever has is refused when the body is read;
- every request carries a player's id (`table.seats`): one is made and set as
  a cookie when it has none.

Refusals are JSON `{"error": …}` with a 4xx status, as every refusal of the table.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.save import SaveError, check_depth
from table.games import TableError
from table.seats import PLAYER_COOKIE, PLAYER_MAX_AGE, new_token, well_formed

BODY_LIMIT = 64 * 1024
UPLOAD_LIMIT = 4 * 1024 * 1024  # a save or a play log of a whole campaign game, sent back
UPLOADS = ("/api/load", "/api/replays")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether listening on `host` keeps the table to this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def addresses(host: str, port: int, extra: Iterable[str] = ()) -> frozenset[str]:
    """The `Host` headers the table answers to: this machine's loopback names, and where
    it listens on a network, that address, this machine's names and the names given."""
    names = set(LOOPBACK) | set(extra)
    if not is_loopback(host):
        names |= {socket.gethostname(), socket.getfqdn()}
        if host not in ("0.0.0.0", "::"):
            names.add(f"[{host}]" if ":" in host else host)
    out = {f"{n}:{port}" for n in names}
    if port == 80:
        out |= names
    return frozenset(out)


def _refuse(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Guard:
    """ASGI middleware in front of the table's app: the checks of this module's docstring."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(hosts)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        cookie = Request(scope).cookies.get(PLAYER_COOKIE)
        player = cookie if well_formed(cookie) else None
        if player is None:
            player = new_token()
            send = _setting_cookie(send, player)
        scope.setdefault("state", {})["player"] = player
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> JSONResponse | None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if host not in self.hosts:
            return _refuse(f"this table does not answer to the address {host[:80]!r}", 403)
        path: str = scope["path"]
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return _refuse("requests from another site's page are refused", 403)
        fetched_from = headers.get("sec-fetch-site", "same-origin")
        if path.startswith("/api/") and fetched_from in ("cross-site", "same-site"):
            return _refuse("requests from another site's page are refused", 403)
        if scope["method"] not in ("GET", "HEAD"):
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            length = headers.get("content-length")
            if kind != "application/json" and length not in (None, "0"):
                return _refuse("send the request's body as application/json", 415)
            limit = UPLOAD_LIMIT if path in UPLOADS else BODY_LIMIT
            if length is not None and (not length.isdigit() or int(length) > limit):
                return _refuse(f"the request's body is larger than {limit} bytes", 413)
        return None


def _setting_cookie(send: Send, player: str) -> Send:
    """`send`, adding the new player's cookie to the response's headers."""
    cookie = (
        f"{PLAYER_COOKIE}={player}; Path=/; Max-Age={PLAYER_MAX_AGE}; HttpOnly; SameSite=Strict"
    )

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [*message["headers"], (b"set-cookie", cookie.encode())]
            message = {**message, "headers": headers}
        await send(message)

    return sending


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object, read up to its limit (a body sent without its length
    is counted as it comes) and refused, never half-read, if it is anything else."""
    limit = UPLOAD_LIMIT if request.url.path in UPLOADS else BODY_LIMIT
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TableError(f"the request's body is larger than {limit} bytes", 413)
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks) or b"{}")
    except RecursionError as e:
        raise TableError("the request body is not JSON: nested too deeply", 400) from e
    except ValueError as e:  # not JSON, not UTF-8, a number of thousands of digits
        raise TableError(f"the request body is not JSON: {e}"[:200], 400) from e
    if not isinstance(data, dict):
        raise TableError("the request body must be a JSON object", 400)
    try:
        check_depth(data)
    except SaveError as e:
        raise TableError(f"the request body is refused: {e}", 400) from e
    return data
