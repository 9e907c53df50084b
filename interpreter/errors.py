"""Diagnostics: every error the static half reports, with a source position.

Owns the shape of an error (`Diagnostic`), how it is printed (`file:line:col: error[code]:
message`, the source line, a caret, a suggestion) and the exceptions that carry a batch of
diagnostics between stages. It does not decide what is an error; the stages do.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Optional

__all__ = [
    "Pos",
    "Diagnostic",
    "RulebookError",
    "ExpressionError",
    "RuleRuntimeError",
    "suggest",
]


class Pos(NamedTuple):
    """A place in a source file; line and col are 1-based. (A named tuple: the loader makes
    one for every key and value of every rule file.)"""

    file: str
    line: int
    col: int

    def shifted(self, line_offset: int, col: int) -> "Pos":
        """The position `line_offset` lines and (on the same line) `col` columns further on."""
        if line_offset:
            return Pos(self.file, self.line + line_offset, col)
        return Pos(self.file, self.line, self.col + col - 1)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN = Pos("<unknown>", 0, 0)


@dataclass
class Diagnostic:
    """One finding of a check: its code, message, place in the rule files, hint and severity."""
    code: str
    message: str
    pos: Pos = UNKNOWN
    hint: Optional[str] = None
    severity: str = "error"  # error | warning | info
    length: int = 1

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": self.pos.file,
            "line": self.pos.line,
            "col": self.pos.col,
            "hint": self.hint,
        }

    def render(self, sources: Optional[dict] = None) -> str:
        """Text form: header, the offending source line with a caret, then the suggestion."""
        head = f"{self.pos}: {self.severity}[{self.code}]: {self.message}"
        lines = [head]
        text = _source_line(self.pos, sources)
        if text is not None:
            text = text.rstrip("\n")
            caret_col = max(self.pos.col, 1)
            if len(text) > 160:  # a very long line: show a window around the caret
                start = max(0, caret_col - 80)
                text = ("..." if start else "") + text[start:start + 160] + ("..." if start + 160 < len(text) else "")
                caret_col = caret_col - start + (3 if start else 0)
            lines.append("    " + text)
            # keep tabs so the caret lines up in a terminal
            prefix = "".join(c if c == "\t" else " " for c in text[: caret_col - 1])
            lines.append("    " + prefix + "^" + "~" * max(0, min(self.length, 60) - 1))
        if self.hint:
            lines.append(f"    = help: {self.hint}")
        return "\n".join(lines)


def _read_regular_file(path: str, limit: int = 2_000_000) -> Optional[str]:
    """The text of a regular file of at most `limit` bytes, else None: showing a source line
    never blocks on a pipe or reads a device (the file may have changed since it was loaded)."""
    import stat

    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return stream.read(limit).decode("utf-8", errors="replace")


def _source_line(pos: Pos, sources: Optional[dict]) -> Optional[str]:
    if pos.line <= 0:
        return None
    text = None
    if sources is not None and pos.file in sources:
        text = sources[pos.file]
    else:
        text = _read_regular_file(pos.file)
        if text is None:
            return None
    all_lines = text.splitlines()
    if pos.line - 1 < len(all_lines):
        return all_lines[pos.line - 1]
    return None


class RulebookError(Exception):
    """A stage failed; carries every diagnostic of that stage."""

    def __init__(self, diagnostics: Iterable[Diagnostic], stage: str = ""):
        self.diagnostics = list(diagnostics)
        self.stage = stage
        first = self.diagnostics[0] if self.diagnostics else None
        super().__init__(
            f"{first.pos}: {first.message}" if first else "ruleset error"
        )

    def render(self, sources: Optional[dict] = None) -> str:
        return "\n".join(d.render(sources) for d in self.diagnostics)


class ExpressionError(RulebookError):
    """A syntax or name error in one expression, with line, column and message."""

    def __init__(self, message: str, line: int, column: int, code: str = "syntax",
                 hint: Optional[str] = None, source: str = "", file: str = "<expression>"):
        self.line = line
        self.column = column
        self.message = message
        self.source = source
        self.code = code
        self.hint = hint
        super().__init__([Diagnostic(code, message, Pos(file, line, column), hint)], "compile")

    def __str__(self) -> str:  # pragma: no cover - convenience
        extra = f" ({self.hint})" if self.hint else ""
        return f"line {self.line}, column {self.column}: {self.message}{extra}"


class RuleRuntimeError(Exception):
    """A rule failed while the game was played (division by zero, a missing key, the work
    bound). The engine turns it into a refused action; the state is unchanged. `pos` is the
    position of the failing expression in the rule files (None where it is not known).

    `plain` is the message without the values the rules evaluated (a message that quotes one
    gives it: "no key 'x' in {...}" is plain "no such key in a map"): what a player may read
    (`shown`), since a value may be another player's secret (docs/security.md). The message
    itself, values and all, is for the designer."""

    def __init__(self, message: str, where: str = "", pos: Optional[Pos] = None, plain: Optional[str] = None):
        self.where = where
        self.pos = pos  # where the failing rule is written, when the compiler knows it
        self.expression: Optional[str] = None  # the failing expression, once it is named
        self.plain = message if plain is None else plain
        super().__init__(f"{where}: {message}" if where else message)

    def shown(self) -> str:
        """The error as any player may read it: where it happened, the failing expression and
        the plain message, no value the rules evaluated."""
        text = f"{self.where}: {self.plain}" if self.where else self.plain
        if self.expression and "(in '" not in text:
            text = f"{text} (in '{self.expression}')"
        if self.pos is not None and getattr(self.pos, "line", 0) and str(self.pos) not in text:
            text = f"{self.pos}: {text}"
        return text


def suggest(word: str, candidates: Iterable[str]) -> Optional[str]:
    """'did you mean ...?' for a misspelled name, or None."""
    word = str(word)  # a YAML key may be a number: `with: {0: 1}`
    cands = [c for c in candidates if isinstance(c, str)]
    match = difflib.get_close_matches(word, cands, n=1, cutoff=0.6)
    if not match:
        lowered = {c.lower(): c for c in cands}
        if word.lower() in lowered:
            match = [lowered[word.lower()]]
    return f"did you mean '{match[0]}'?" if match else None
