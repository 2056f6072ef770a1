"""`muster lsp`: the language server for .mst files, over stdio (pygls).

Diagnostics as you type (every error and warning of the ruleset, on the file
it belongs to; a file whose problems are fixed is sent an empty list),
hover (a name's kind, type, title, citation and provisional reason),
go-to-definition (into imported files, the series too) and completion of
the names in scope. The answers come from `muster.editor`; this module
only speaks the protocol. pygls is an optional dependency (the `editor`
extra): `muster.workbench` imports this module only when `muster lsp` runs.

The server never stalls: a malformed header costs only its own message (the
reader finds the next `Content-Length:` header), a request whose params do
not fit its method is answered with JSON-RPC's -32602, an unsaved buffer
(`untitled:`) is checked as a ruleset of one file, and checks run on a
thread of their own, so an edit returns at once and a hover is answered
while a large ruleset is checked.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from dsl.diagnostics import SEVERITY_WARNING, Diagnostic
from dsl.source import Span
from muster.editor import Editor, Symbol

MAX_COMPLETIONS = 1000
# A message larger than this is no editor's: its header is dropped as malformed.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
HEADER = b"Content-Length:"
logger = logging.getLogger(__name__)
COMPLETION_KINDS = {
    "parameter": types.CompletionItemKind.Variable,
    "bound name": types.CompletionItemKind.Variable,
    "game variable": types.CompletionItemKind.Variable,
    "variable": types.CompletionItemKind.Variable,
    "query": types.CompletionItemKind.Function,
    "effect": types.CompletionItemKind.Function,
    "primitive": types.CompletionItemKind.Function,
    "define": types.CompletionItemKind.Function,
    "procedure": types.CompletionItemKind.Method,
    "phase": types.CompletionItemKind.Method,
    "unit attribute": types.CompletionItemKind.Field,
}


def _range(span: Span) -> types.Range:
    start = types.Position(line=max(span.line - 1, 0), character=max(span.column - 1, 0))
    end_line = span.end_line if span.end_line >= span.line else span.line
    end_col = (
        span.end_column
        if span.end_line > span.line or span.end_column > span.column
        else span.column + 1
    )
    return types.Range(
        start=start, end=types.Position(line=max(end_line - 1, 0), character=max(end_col - 1, 0))
    )


def _diagnostic(d: Diagnostic) -> types.Diagnostic:
    severity = (
        types.DiagnosticSeverity.Warning
        if d.severity == SEVERITY_WARNING
        else types.DiagnosticSeverity.Error
    )
    message = "\n".join([d.message, *d.notes])
    return types.Diagnostic(
        range=_range(d.span), message=message, severity=severity, code=d.code.code, source="muster"
    )


def _path(uri: str) -> Path:
    """The file a document is; for an unsaved buffer (`untitled:Untitled-1`) a
    path in the working folder that no file holds, so that the editor checks
    the buffer as a ruleset of its own."""
    fs = to_fs_path(uri) if uri.startswith("file:") else None
    if fs is not None:
        return Path(fs)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", uri.partition(":")[2]).strip("._")[:100]
    return Path.cwd() / f"{name or 'untitled'}.unsaved.mst"


class ResynchronisingInput:
    """stdin as pygls's reader loop reads it, made to find its place again.

    The loop keeps its place by header lines: after a malformed header the
    body that follows is read as header lines, and since a body ends without
    a newline every later message is glued to it and lost. A line holding
    `Content-Length:` after other bytes is cut to start there, so the next
    well-formed message is read; a length beyond any editor's message is
    dropped as malformed rather than waited for."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def readline(self) -> bytes:
        line = self.stream.readline()
        at = line.find(HEADER)
        if at > 0:
            line = line[at:]
        if at >= 0:
            length = line[len(HEADER) :].strip()
            if not length.isdigit() or int(length) > MAX_MESSAGE_BYTES:
                logger.warning("malformed header dropped: %r", line[:80])
                return b"X-Malformed: dropped\r\n"
        return line

    def read(self, size: int) -> bytes:
        return self.stream.read(size)


class SerialOutput:
    """stdout written one whole message at a time: checks publish their
    diagnostics from their own thread while the loop answers requests."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self.lock:
            self.stream.write(data)
            self.stream.flush()

    def flush(self) -> None:
        """Each write has flushed already."""

    def close(self) -> None:
        self.stream.close()


class AnsweringProtocol(LanguageServerProtocol):
    """pygls's protocol, answering a request it cannot read: params that do not
    fit the method get JSON-RPC's -32602 (invalid params) instead of silence."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as e:
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=e.to_response_error())
            raise


class Checks:
    """Checks run on a thread of their own, the newest text of each document
    first: an edit returns at once, and edits made during a check are folded
    into the next one."""

    def __init__(self, run: Callable[[str, str | None], None]) -> None:
        self.run = run
        self.pending: dict[str, str | None] = {}
        self.wake = threading.Condition()
        threading.Thread(target=self._loop, name="muster-checks", daemon=True).start()

    def submit(self, uri: str, text: str | None) -> None:
        with self.wake:
            self.pending[uri] = text
            self.wake.notify()

    def _loop(self) -> None:
        while True:
            with self.wake:
                while not self.pending:
                    self.wake.wait()
                uri = next(iter(self.pending))
                text = self.pending.pop(uri)
            try:
                self.run(uri, text)
            except Exception:  # a bug in a check must not end the checks that follow
                logger.exception("checking %s failed", uri)


def _item(s: Symbol) -> types.CompletionItem:
    return types.CompletionItem(
        label=s.name,
        kind=COMPLETION_KINDS.get(s.kind, types.CompletionItemKind.Constant),
        detail=f"{s.kind}" + (f": {s.type}" if s.type else ""),
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=s.hover()),
    )


def make_server() -> LanguageServer:
    server = LanguageServer("muster", "0.1.0", protocol_cls=AnsweringProtocol)
    editor = Editor()
    lock = threading.Lock()  # one question to the editor at a time
    published: set[Path] = set()
    uris: dict[Path, str] = {}  # unsaved buffers: their path -> their own URI

    def check(uri: str, text: str | None) -> None:
        path = _path(uri)
        uris[path.resolve()] = uri
        with lock:
            analysis = editor.update(path, text)
        if analysis is None:
            return
        reported = analysis.files_reported()
        for path in reported | published:
            uri_of = uris.get(path) or from_fs_path(str(path))
            if uri_of is None:
                continue
            diags = [_diagnostic(d) for d in analysis.diagnostics_of(path)]
            server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri_of, diagnostics=diags)
            )
        published.clear()
        published.update(reported)

    checks = Checks(check)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        checks.submit(params.text_document.uri, params.text_document.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        doc = server.workspace.get_text_document(params.text_document.uri)
        checks.submit(params.text_document.uri, doc.source)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        doc = server.workspace.get_text_document(params.text_document.uri)
        checks.submit(params.text_document.uri, doc.source)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        checks.submit(params.text_document.uri, None)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @server.thread()
    def hover(params: types.HoverParams) -> types.Hover | None:
        pos = params.position
        with lock:
            text = editor.hover(_path(params.text_document.uri), pos.line + 1, pos.character + 1)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @server.thread()
    def definition(params: types.DefinitionParams) -> types.Location | None:
        pos = params.position
        with lock:
            span = editor.definition(
                _path(params.text_document.uri), pos.line + 1, pos.character + 1
            )
        if span is None:
            return None
        uri = from_fs_path(str(Path(span.file).resolve()))
        return types.Location(uri=uri, range=_range(span)) if uri else None

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."])
    )
    @server.thread()
    def completion(params: types.CompletionParams) -> types.CompletionList:
        pos = params.position
        with lock:
            found = editor.completion(
                _path(params.text_document.uri), pos.line + 1, pos.character + 1
            )
        items = [_item(s) for s in found[:MAX_COMPLETIONS]]
        return types.CompletionList(is_incomplete=len(found) > MAX_COMPLETIONS, items=items)

    return server


def serve() -> None:
    """Serve over stdin/stdout until the client says exit."""
    make_server().start_io(ResynchronisingInput(sys.stdin.buffer), SerialOutput(sys.stdout.buffer))
