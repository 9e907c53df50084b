"""Loading rule files: safe YAML only, a source position on every node, limits on size,
depth and alias expansion, and includes across the files of a ruleset.

Owns: turning bytes on disk into a tree of `Map`/`Seq`/`Text` nodes (nodes.py) that remember
where they came from, and the `include:` list. The node types are in nodes.py, the safe reading
of files and the size limits in rulefiles.py (both re-exported here). Does not own composition of
modules (compose.py) or meaning (schema.py, the compiler).
"""
from __future__ import annotations

import glob
import os
import re
from typing import Any, Optional

import yaml

from . import yaml_hints
from .errors import Diagnostic, Pos, RulebookError, suggest
from .nodes import Map, Seq, Text, clone, expr_pos, key_pos, plain, pos_of, value_pos  # noqa: F401 (re-exported)
from .rulefiles import LIMITS, _kind, read_limited, safe_path  # noqa: F401 (re-exported)

__all__ = ["Map", "Seq", "Text", "load_file", "pos_of", "key_pos", "value_pos", "LIMITS", "plain"]

_ALLOWED_SCALAR_TAGS = {
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null",
}

_ALLOWED_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}


class _Builder:
    def __init__(self, path: str, loader, text: str = ""):
        self.path = path
        self.loader = loader
        self.count = 0
        self.diags: list[Diagnostic] = []
        self.text = text
        self._line_starts = None
        self.text_keys = True  # until a key that is not text is met
        self.max_nodes = LIMITS["nodes"]
        self.max_depth = LIMITS["depth"]

    def _offset(self, mark) -> int:
        """Character offset of a mark from its line and column (the same for both parsers)."""
        if self._line_starts is None:
            # YAML's line breaks: \n, \r\n, \r, NEL, LS, PS
            self._line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.text)]
        if mark.line >= len(self._line_starts):
            return len(self.text)
        return min(self._line_starts[mark.line] + mark.column, len(self.text))

    def pos(self, node) -> Pos:
        mark = node.start_mark
        return Pos(self.path, mark.line + 1, mark.column + 1)

    def build(self, node, depth=0, pos=None):
        """The positioned tree of a composed node (limits and tags checked on the way); `pos`
        is the node's position when the caller has it already (it records it too)."""
        self.count += 1
        if pos is None:
            pos = self.pos(node)
        if self.count > self.max_nodes:
            raise _Stop(Diagnostic(
                "yaml-too-large", f"the file has too many nodes: more than {self.max_nodes}",
                pos, "split the data, or write it more compactly"))
        if depth > self.max_depth:
            raise _Stop(Diagnostic("yaml-too-deep", f"nesting deeper than {self.max_depth} levels", pos))
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, pos)
        if node.tag not in _ALLOWED_COLLECTION_TAGS:
            raise _Stop(Diagnostic("yaml-tag", f"the tag '{_short_tag(node.tag)}' is not allowed", pos,
                                   "rule files are plain data: remove the tag"))
        path = self.path
        depth += 1
        if isinstance(node, yaml.SequenceNode):
            seq = Seq()
            seq.pos = pos
            positions = seq.ipos
            for item in node.value:
                mark = item.start_mark
                item_pos = Pos(path, mark.line + 1, mark.column + 1)
                seq.append(self.build(item, depth, item_pos))
                positions.append(item_pos)
            return seq
        mapping = Map()
        mapping.pos = pos
        key_positions, value_positions = mapping.kpos, mapping.vpos
        for knode, vnode in node.value:
            mark = knode.start_mark
            kpos = Pos(path, mark.line + 1, mark.column + 1)
            if knode.tag == "tag:yaml.org,2002:merge":
                raise _Stop(Diagnostic("yaml-merge", "merge keys ('<<') are not supported", kpos,
                                       "write the keys out"))
            key = self.build(knode, depth, kpos)
            if isinstance(key, Text):
                key = str(key)
            elif isinstance(key, (dict, list)):
                raise _Stop(Diagnostic("yaml-key", "a mapping key must be a plain value", kpos))
            else:
                self.text_keys = False
            if key in mapping:
                self.diags.append(_duplicate_key(key, kpos, key_positions[key]))
            mark = vnode.start_mark
            vpos = Pos(path, mark.line + 1, mark.column + 1)
            mapping[key] = self.build(vnode, depth, vpos)
            key_positions[key] = kpos
            value_positions[key] = vpos
        return mapping

    def _scalar(self, node, pos):
        style = node.style
        if node.tag == _STR_TAG:
            value = node.value  # the common case, without the constructor's machinery
        elif node.tag in _ALLOWED_SCALAR_TAGS:
            value = self.loader.construct_object(node, deep=True)  # a number, a boolean or None
            if isinstance(value, bool) and not style and node.value.lower() not in ("true", "false"):
                self.diags.append(_yaml_bool(node.value, value, pos))
            return value
        else:
            raise _Stop(Diagnostic("yaml-tag", f"the tag '{_short_tag(node.tag)}' is not allowed", pos,
                                   "rule files are plain data: remove the tag"))
        block = style in ("|", ">")
        if node.end_mark.line > node.start_mark.line:
            block = self._rows(node) or block
        return Text(value, pos, style in ("'", '"'), block)  # (quoted, block)

    def _rows(self, node):
        """The file lines of a scalar written over several lines (see `_map_multiline`)."""
        if not self.text:
            return None
        start, end = node.start_mark, node.end_mark
        raw = self.text[self._offset(start):self._offset(end)].split("\n")
        rows = []
        if node.style in ("|", ">"):
            body = raw[1:]
            indent = None
            for row in body:
                if row.strip():
                    indent = len(row) - len(row.lstrip(" "))
                    break
            if indent is None:
                return None
            for index, row in enumerate(body):
                rows.append((start.line + 2 + index, indent + 1, row[indent:].rstrip("\r")))
            while rows and not rows[-1][2]:
                rows.pop()
            return (node.style == ">", rows)
        first_col = start.column + 1 + (1 if node.style in ("'", '"') else 0)
        for index, row in enumerate(raw):
            if index == 0:
                rows.append((start.line + 1, first_col, row[first_col - start.column - 1:].rstrip()))
            else:
                stripped = row.lstrip(" \t")
                rows.append((start.line + 1 + index, len(row) - len(stripped) + 1, stripped.rstrip()))
        return (True, rows)

    def measure(self, root) -> None:
        """Refuse an alias bomb before building anything: the size of every node after alias
        expansion, computed once per distinct node (aliases share nodes)."""
        sizes: dict = {}

        def size(node, depth):
            if depth > self.max_depth:  # checked at every use of a node, as `build` does
                raise _Stop(Diagnostic("yaml-too-deep", f"nesting deeper than {self.max_depth} levels",
                                       self.pos(node)))
            got = sizes.get(id(node))
            if got is not None:
                return got
            total = 1
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    total += size(key, depth + 1) + size(value, depth + 1)
            elif isinstance(node, yaml.SequenceNode):
                for value in node.value:
                    total += size(value, depth + 1)
            sizes[id(node)] = total
            return total

        limit = LIMITS["nodes"]
        total = size(root, 0)
        if total <= limit:
            return
        if len(sizes) > limit:  # that many nodes are written out: no alias needed to get there
            raise _Stop(Diagnostic(
                "yaml-too-large", f"the file has too many nodes: {len(sizes)} values; the limit is {limit}",
                self.pos(root), "split the data, or write it more compactly"))
        node = root
        while True:
            kids = ([x for kv in node.value for x in kv] if isinstance(node, yaml.MappingNode)
                    else list(node.value) if isinstance(node, yaml.SequenceNode) else [])
            big = [k for k in kids if sizes.get(id(k), 0) > limit]
            if not big:
                break
            node = big[0]
        raise _Stop(Diagnostic(
            "yaml-too-large",
            f"this value expands to {sizes[id(node)]} nodes through aliases; the limit is {limit} "
            "(aliases that repeat aliases, a 'billion laughs')", self.pos(node),
            "write the data out, or use fewer nested aliases"))


_STR_TAG = "tag:yaml.org,2002:str"
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
# An anchor is '&' and at least one letter, digit, '-' or '_' (both parsers); a file without
# this can hold no anchor, so no alias ('&' in text, as in "Pill & Bill", is not enough).
_ANCHOR = re.compile("&[0-9A-Za-z_-]")


def _duplicate_key(key, pos: Pos, first: Pos) -> Diagnostic:
    return Diagnostic("duplicate-key", f"key '{key}' appears twice in this mapping", pos,
                      f"the first is at line {first.line}")


def _yaml_bool(text: str, value: bool, pos: Pos) -> Diagnostic:
    """YAML 1.1 reads yes/no/on/off/y/n as booleans: almost never what a designer meant."""
    word = str(value).lower()
    return Diagnostic("yaml-bool", f"'{text}' is read as the boolean {word} by YAML", pos,
                      f"write {word} for a boolean, or quote it: '{text}'")


def _short_tag(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


class _Stop(Exception):
    def __init__(self, diag):
        self.diag = diag


_FILE_CACHE: dict = {}


def load_file(path: str, display: Optional[str] = None) -> Any:
    """Load one YAML file into a positioned tree, or raise RulebookError with positions.

    Parsed files are kept per process by path, size and modification time (composing every
    module combination reads the same files again). The tree is shared: treat it as read-only
    (compose.py copies what it changes)."""
    try:
        status = os.stat(path)
        key = (os.path.abspath(path), display, status.st_size, status.st_mtime_ns)
    except OSError:
        key = None
    if key is not None and key in _FILE_CACHE:
        return _FILE_CACHE[key]
    tree = _load_file(path, display)
    if key is not None:
        if len(_FILE_CACHE) > 2000:
            _FILE_CACHE.clear()
        _FILE_CACHE[key] = tree
    return tree


def _load_file(path: str, display: Optional[str] = None) -> Any:
    shown = display or path
    raw = read_limited(path, shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        col = error.start - (before.rfind(b"\n") + 1) + 1
        raise RulebookError([Diagnostic("encoding", f"byte 0x{raw[error.start]:02x} is not UTF-8",
                                        Pos(shown, line, col), "save the file as UTF-8")], "load")
    if not text.strip() or all(l.strip().startswith("#") or not l.strip() for l in text.splitlines()):
        raise RulebookError([Diagnostic("empty", "the file is empty", Pos(shown, 1, 1),
                                        "a rule file holds a mapping of sections")], "load")
    tree = load_text(text, shown)
    if isinstance(tree, Map):
        import hashlib

        tree.digest = hashlib.sha256(raw).hexdigest()
    return tree


def _c_composer_fits() -> bool:
    """libyaml's composer (many times faster than the pure-Python one) is used when present
    and recent enough to bound nesting itself (0.2.5 refuses more than 1000 levels, so its
    recursion in C is bounded); `_Builder.measure` then applies the real depth limit."""
    if not getattr(yaml, "__with_libyaml__", False):
        return False
    try:
        from yaml import _yaml

        return tuple(_yaml.get_version()) >= (0, 2, 5)
    except (ImportError, AttributeError, TypeError):
        return False


_USE_C = _c_composer_fits()


def _compose(text: str, shown: str):
    """(loader, root node) of the text's one document. A file libyaml refuses is read again
    by the pure-Python parser, whose error messages the diagnostics are written for."""
    if _USE_C:
        loader = yaml.CSafeLoader(text)
        try:
            return loader, loader.get_single_node()
        except yaml.YAMLError:
            loader.dispose()
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as error:  # a control character
        before = text[: error.position]
        line = before.count("\n") + 1
        col = error.position - (before.rfind("\n") + 1) + 1
        raise RulebookError([Diagnostic("encoding", f"character U+{error.character:04X} is not allowed in a rule file",
                                        Pos(shown, line, col), "remove the control character")], "load") from None
    try:
        return loader, _single_node(loader, text, shown)
    except RulebookError:
        loader.dispose()
        raise


def _single_node(loader, text: str, shown: str):
    try:
        return loader.get_single_node()
    except yaml.MarkedYAMLError as error:
        raise RulebookError([_yaml_error(error, text, shown)], "load") from None
    except yaml.YAMLError as error:
        raise RulebookError([Diagnostic("yaml", str(error).splitlines()[0], Pos(shown, 1, 1))], "load") from None
    except RecursionError:
        raise RulebookError([_deep_at(text, shown)], "load") from None


def _yaml_error(error, text: str, shown: str) -> Diagnostic:
    """A YAML syntax error as a diagnostic with its position and, for the usual slips, a hint."""
    mark = error.problem_mark or error.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    msg = (error.problem or "invalid YAML").strip()
    if error.context:
        msg = f"{msg} ({error.context.strip()})"
    hint = None
    if "tab" in msg.lower() or "'\\t'" in msg:
        hint = "indent with spaces, not tabs"
    elif "mapping values are not allowed" in msg:
        hint = "quote a value that contains ': '"
    elif "while parsing a flow" in msg and error.context_mark is not None:
        kind = "list" if "sequence" in msg else "mapping"
        hint = (f"check the brackets of the {kind} opened at line {error.context_mark.line + 1}, "
                f"column {error.context_mark.column + 1}")
    msg, hint = yaml_hints.explain(text, msg, line, col, hint)
    return Diagnostic("yaml", msg, Pos(shown, line, col), hint)


def load_text(text: str, shown: str = "<text>"):
    """YAML text -> a positioned tree, or RulebookError with file:line:col. The one reader:
    the composer builds a node graph (`_compose`), `_Builder.measure` refuses an alias bomb or
    too deep a nesting before anything is built, `_Builder.build` turns the graph into
    Map/Seq/Text with positions."""
    loader, node = _compose(text, shown)
    try:
        if node is None:
            raise RulebookError([Diagnostic("empty", "the file is empty", Pos(shown, 1, 1))], "load")
        builder = _Builder(shown, loader, text)
        try:
            if _ANCHOR.search(text):  # only an anchor can be repeated by aliases (an alias bomb)
                builder.measure(node)
            tree = builder.build(node)
        except _Stop as stop:
            raise RulebookError([stop.diag], "load") from None
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            raise RulebookError([Diagnostic("yaml", str(getattr(error, "problem", error)), Pos(shown, line, col))],
                                "load") from None
        except RecursionError:
            raise RulebookError([Diagnostic("yaml-too-deep", "nesting too deep", Pos(shown, 1, 1))], "load") from None
        if builder.diags:
            raise RulebookError(builder.diags, "load")
        if isinstance(tree, Map):
            tree.text_keys = builder.text_keys
        return tree
    finally:
        loader.dispose()


def _deep_at(text: str, shown: str) -> Diagnostic:
    """Where nesting first goes past the limit, for a file too deep for the composer: the first
    node (value, key, list or mapping) more than LIMITS["depth"] collections in, the same node
    `_Builder.build` names (an alias at its anchor's place). Found with the event parser, which
    does not recurse."""
    limit = LIMITS["depth"]
    depth = 0  # collections open around the next node
    anchored: dict = {}
    pos = Pos(shown, 1, 1)
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
                continue
            if isinstance(event, yaml.AliasEvent):
                mark = anchored.get(event.anchor, event.start_mark)
            elif isinstance(event, yaml.NodeEvent):  # a scalar, or a list or mapping starting
                mark = event.start_mark
                if event.anchor is not None:
                    anchored[event.anchor] = mark
            else:
                continue
            if depth > limit:
                pos = Pos(shown, mark.line + 1, mark.column + 1)
                break
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
    except (yaml.YAMLError, RecursionError):
        pass
    return Diagnostic("yaml-too-deep", f"nesting deeper than {limit} levels", pos)


def expand_includes(root: Map, base_dir: str, root_display: str, rel) -> list[tuple[str, Map]]:
    """The root file's `include:` list (paths or globs relative to the ruleset folder) -> the
    loaded files in order, as (display path, tree). Every match goes through `safe_path`."""
    out = []
    inc = root.get("include") or []
    if isinstance(inc, str):
        inc = [inc]
    if not isinstance(inc, list):
        raise RulebookError([Diagnostic("include", f"'include' is a list of file paths, not {_kind(inc)}",
                                        value_pos(root, "include"))], "load")
    diags = []
    seen = set()
    for index, pattern in enumerate(inc):
        where = (value_pos(root["include"], index) if isinstance(root.get("include"), Seq)
                 else value_pos(root, "include"))
        if not isinstance(pattern, str):
            diags.append(Diagnostic("include", f"an include is a file path, not {_kind(pattern)}", where))
            continue
        if os.path.isabs(pattern) or ".." in pattern.replace("\\", "/").split("/"):
            diags.append(Diagnostic("include", f"include '{pattern}' leaves the ruleset folder", where,
                                    "include files inside the ruleset folder only"))
            continue
        matches = sorted(glob.glob(os.path.join(glob.escape(base_dir), pattern)))
        if not matches:
            diags.append(Diagnostic("include", f"include '{pattern}' matches no file", where,
                                    suggest(pattern, _yaml_files_under(base_dir))))
            continue
        for path in matches:
            try:
                real = safe_path(base_dir, os.path.relpath(path, base_dir), "include", where, "include")
                if real in seen:
                    continue
                seen.add(real)
                out.append((rel(path), load_file(real, rel(path))))
            except RulebookError as error:
                diags.extend(error.diagnostics)
    if diags:
        raise RulebookError(diags, "load")
    return out


_SUGGEST_FILES = 2000  # files looked at for a "did you mean" (bounded; symlinks not followed)


def _yaml_files_under(base_dir: str) -> list:
    """Up to _SUGGEST_FILES .yaml paths under the folder, relative to it, for suggestions.
    Symlinked folders are not entered, so a symlink loop cannot make the search endless."""
    found: list = []
    for folder, dirs, files in os.walk(base_dir, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".yaml", ".yml")):
                found.append(os.path.relpath(os.path.join(folder, name), base_dir))
                if len(found) >= _SUGGEST_FILES:
                    return found
    return found
