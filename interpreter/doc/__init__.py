"""`rulebook doc`: the rulebook generated from the rule files, for proof-reading against the
printed one (Markdown or one self-contained HTML file).

Owns the command's arguments and output; the content is built in doc.model, worded in
doc.expression_words + doc.words and written by doc.markdown / doc.html. Also owns the
provenance list of `rulebook validate --provenance --list` (doc.provenance). Heavy modules are imported inside
the functions so that `rulebook --help` stays fast.
"""
from __future__ import annotations

__all__ = ["add_parser", "run_command", "render", "provenance_list"]


def add_parser(subparsers) -> None:
    doc = subparsers.add_parser("doc", help="the rulebook generated from the rule files (Markdown or HTML)")
    doc.add_argument("ruleset", help="a bundled ruleset name (e.g. davos) or a path")
    doc.add_argument("--module", "-m", action="append", default=[], metavar="NAME", help="add a module (repeatable)")
    doc.add_argument("--format", choices=["md", "html"], default=None,
                     help="md (default) or html; with -o FILE.html, html")
    doc.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of the terminal")


def render(ruleset, fmt: str = "md") -> str:
    """The generated rulebook of a loaded ruleset as Markdown ('md') or HTML ('html')."""
    from .model import build_document

    document = build_document(ruleset)
    if fmt == "html":
        from .html import to_html

        return to_html(document)
    from .markdown import to_markdown

    return to_markdown(document)


def run_command(args, out, err) -> int:
    """`rulebook doc`; returns the exit code (a ruleset error is raised to the CLI)."""
    from ..ruleset import load

    fmt = args.format
    if fmt is None:
        fmt = "html" if args.output and args.output.lower().endswith((".html", ".htm")) else "md"
    ruleset = load(args.ruleset, modules=args.module)
    text = render(ruleset, fmt)
    if not args.output:
        out.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as error:
        print(f"rulebook doc: error: cannot write {args.output}: {error.strerror or error}", file=err)
        return 1
    print(f"wrote {args.output} ({fmt}, {len(text.encode('utf-8')) // 1024 + 1} KB) for {ruleset.name} "
          f"[{'+'.join(ruleset.modules) or 'base'}]", file=err)
    return 0


def provenance_list(ruleset, as_json: bool = False):
    """Every definition by kind with file:line: text for `validate --provenance --list`, or
    a JSON-ready mapping kind -> definitions."""
    from .provenance import list_json, list_text

    return list_json(ruleset) if as_json else list_text(ruleset)

