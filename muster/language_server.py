"""`muster lsp`: the language server for .mst files, over stdio (pygls).

Diagnostics as you type (every error and warning of the ruleset, on the file
it belongs to; a file whose problems are fixed is sent an empty list),
hover (a name's kind, type, title, citation and provisional reason),
go-to-definition (into imported files, the series too) and completion of
the names in scope. The answers come from `muster.editor`; this module
only speaks the protocol. pygls is an optional dependency (the `editor`
extra): `muster.workbench` imports this module only when `muster lsp` runs.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from dsl.diagnostics import SEVERITY_WARNING, Diagnostic
from dsl.source import Span
from muster.editor import Editor, Symbol

MAX_COMPLETIONS = 1000
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
    fs = to_fs_path(uri)
    if fs is None:
        raise ValueError(f"not a file: {uri}")
    return Path(fs)


def _item(s: Symbol) -> types.CompletionItem:
    return types.CompletionItem(
        label=s.name,
        kind=COMPLETION_KINDS.get(s.kind, types.CompletionItemKind.Constant),
        detail=f"{s.kind}" + (f": {s.type}" if s.type else ""),
        documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=s.hover()),
    )


def make_server() -> LanguageServer:
    server = LanguageServer("muster", "0.1.0")
    editor = Editor()
    published: set[Path] = set()

    def check(uri: str, text: str | None) -> None:
        analysis = editor.update(_path(uri), text)
        if analysis is None:
            return
        reported = analysis.files_reported()
        for path in reported | published:
            uri_of = from_fs_path(str(path))
            if uri_of is None:
                continue
            diags = [_diagnostic(d) for d in analysis.diagnostics_of(path)]
            server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri_of, diagnostics=diags)
            )
        published.clear()
        published.update(reported)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        check(params.text_document.uri, params.text_document.text)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        doc = server.workspace.get_text_document(params.text_document.uri)
        check(params.text_document.uri, doc.source)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        doc = server.workspace.get_text_document(params.text_document.uri)
        check(params.text_document.uri, doc.source)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        check(params.text_document.uri, None)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(params: types.HoverParams) -> types.Hover | None:
        pos = params.position
        text = editor.hover(_path(params.text_document.uri), pos.line + 1, pos.character + 1)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(params: types.DefinitionParams) -> types.Location | None:
        pos = params.position
        span = editor.definition(_path(params.text_document.uri), pos.line + 1, pos.character + 1)
        if span is None:
            return None
        uri = from_fs_path(str(Path(span.file).resolve()))
        return types.Location(uri=uri, range=_range(span)) if uri else None

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."])
    )
    def completion(params: types.CompletionParams) -> types.CompletionList:
        pos = params.position
        found = editor.completion(_path(params.text_document.uri), pos.line + 1, pos.character + 1)
        items = [_item(s) for s in found[:MAX_COMPLETIONS]]
        return types.CompletionList(is_incomplete=len(found) > MAX_COMPLETIONS, items=items)

    return server


def serve() -> None:
    """Serve over stdin/stdout until the client says exit."""
    make_server().start_io()
