"""Loading rule files: safe YAML only, a source position on every node, limits on size,
depth and alias expansion, and includes across the files of a ruleset.

Owns: turning bytes on disk into a tree of `Map`/`Seq`/`Text` nodes that remember where they
came from. Does not own composition of modules (modules.py) or meaning (schema, compile).
"""
from __future__ import annotations

import glob
import os
import re
from typing import Any, Optional

import yaml

from . import yaml_hints
from .errors import Diagnostic, Pos, RulebookError, suggest

__all__ = ["Map", "Seq", "Text", "load_file", "pos_of", "key_pos", "value_pos", "LIMITS", "plain"]

LIMITS = {
    "file_bytes": 2_000_000,
    "depth": 64,
    "nodes": 500_000,  # nodes after alias expansion, per file
}

_ALLOWED_SCALAR_TAGS = {
    "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null",
}

_ALLOWED_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}


class Map(dict):
    """A YAML mapping that remembers its position and those of its keys and values."""

    __slots__ = ("pos", "kpos", "vpos", "digest", "text_keys")

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.pos: Pos = Pos("<generated>", 0, 0)
        self.kpos: dict = {}
        self.vpos: dict = {}
        self.digest = None  # of the file's bytes, on a file's top mapping
        self.text_keys = False  # on a file's top mapping: every key in the file is text


class Seq(list):
    __slots__ = ("pos", "ipos")

    def __init__(self, *a):
        super().__init__(*a)
        self.pos: Pos = Pos("<generated>", 0, 0)
        self.ipos: list = []


class Text(str):
    """A string scalar with its position; `col_offset` is 1 when the scalar was quoted, so a
    column inside the text maps to a column in the file."""

    __slots__ = ("pos", "quoted", "block")

    def __new__(cls, value, pos=None, quoted=False, block=False):
        obj = super().__new__(cls, value)
        obj.pos = pos or Pos("<generated>", 0, 0)
        obj.quoted = quoted
        obj.block = block
        return obj


def pos_of(node, default: Optional[Pos] = None) -> Pos:
    return getattr(node, "pos", None) or default or Pos("<unknown>", 0, 0)


def key_pos(m, key) -> Pos:
    if isinstance(m, Map) and key in m.kpos:
        return m.kpos[key]
    return pos_of(m)


def value_pos(m, key) -> Pos:
    if isinstance(m, Map) and key in m.vpos:
        return m.vpos[key]
    if isinstance(m, Seq) and isinstance(key, int) and key < len(m.ipos):
        return m.ipos[key]
    return pos_of(m)


def expr_pos(text, line: int, col: int) -> Pos:
    """Position in the file of (line, col) inside an expression scalar."""
    base = pos_of(text)
    if isinstance(text, Text) and isinstance(text.block, tuple):
        mapped = _map_multiline(text.block, line, col)
        if mapped is not None:
            return Pos(base.file, mapped[0], mapped[1])
    if isinstance(text, Text) and text.block:
        return Pos(base.file, base.line + line, col + base.col)
    if line > 1:
        return Pos(base.file, base.line + line - 1, col)
    offset = 1 if isinstance(text, Text) and text.quoted else 0
    return Pos(base.file, base.line, base.col + offset + col - 1)


def _map_multiline(info, line: int, col: int):
    """(line, col) inside the value of a scalar written over several file lines -> (file line,
    file col). `info` is (folded, [(file line, file col of the content, content), ...]): a
    literal block keeps every line break, a folded block or a multi-line flow scalar turns a
    line break into a space and a blank line into a line break."""
    folded, rows = info
    # the value's lines, to turn (line, col) into an offset counting a line break as one char
    value_lines: list = []
    cur = None
    for _, _, content in rows:
        if not folded:
            value_lines.append(content)
        elif not content:
            value_lines.append(cur or "")
            cur = None
        else:
            cur = content if cur is None else cur + " " + content
    if folded:
        value_lines.append(cur or "")
    text_offset = sum(len(v) + 1 for v in value_lines[:line - 1]) + col - 1
    # walk the file rows with the same accounting
    o = text_offset
    for fl, fc, content in rows:
        if folded and not content:
            continue
        if o <= len(content):
            return fl, fc + o
        o -= len(content) + 1
    return None


def plain(node):
    """The same tree as plain dicts, lists and strs (for JSON Schema and for the engine)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, Text):
        return str(node)
    return node


class _Builder:
    def __init__(self, path: str, loader, text: str = ""):
        self.path = path
        self.loader = loader
        self.count = 0
        self.diags: list[Diagnostic] = []
        self.text = text
        self._line_starts = None
        self.text_keys = True  # until a key that is not text is met

    def _offset(self, mark) -> int:
        """Character offset of a mark from its line and column (the same for both parsers)."""
        if self._line_starts is None:
            # YAML's line breaks: \n, \r\n, \r, NEL, LS, PS
            self._line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.text)]
        if mark.line >= len(self._line_starts):
            return len(self.text)
        return min(self._line_starts[mark.line] + mark.column, len(self.text))

    def pos(self, node) -> Pos:
        m = node.start_mark
        return Pos(self.path, m.line + 1, m.column + 1)

    def build(self, node, depth=0):
        self.count += 1
        if self.count > LIMITS["nodes"]:
            raise _Stop(Diagnostic(
                "yaml-too-large",
                f"the file expands to more than {LIMITS['nodes']} nodes (aliases that repeat "
                "aliases, a 'billion laughs')", self.pos(node),
                "write the data out, or use fewer nested aliases"))
        if depth > LIMITS["depth"]:
            raise _Stop(Diagnostic("yaml-too-deep", f"nesting deeper than {LIMITS['depth']} levels",
                                   self.pos(node)))
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in _ALLOWED_COLLECTION_TAGS:
            raise _Stop(Diagnostic("yaml-tag", f"the tag '{_short_tag(node.tag)}' is not allowed",
                                   self.pos(node),
                                   "rule files are plain data: remove the tag"))
        if isinstance(node, yaml.MappingNode):
            m = Map()
            m.pos = self.pos(node)
            for knode, vnode in node.value:
                if knode.tag == "tag:yaml.org,2002:merge":
                    raise _Stop(Diagnostic("yaml-merge", "merge keys ('<<') are not supported",
                                           self.pos(knode), "write the keys out"))
                key = self.build(knode, depth + 1)
                if isinstance(key, (dict, list)):
                    raise _Stop(Diagnostic("yaml-key", "a mapping key must be a plain value",
                                           self.pos(knode)))
                if isinstance(key, Text):
                    key = str(key)
                else:
                    self.text_keys = False
                if key in m:
                    self.diags.append(_duplicate_key(key, self.pos(knode), m.kpos[key]))
                value = self.build(vnode, depth + 1)
                m[key] = value
                m.kpos[key] = self.pos(knode)
                m.vpos[key] = self.pos(vnode)
            return m
        if isinstance(node, yaml.SequenceNode):
            s = Seq()
            s.pos = self.pos(node)
            for item in node.value:
                s.append(self.build(item, depth + 1))
                s.ipos.append(self.pos(item))
            return s
        if node.tag not in _ALLOWED_SCALAR_TAGS:
            raise _Stop(Diagnostic("yaml-tag", f"the tag '{_short_tag(node.tag)}' is not allowed",
                                   self.pos(node),
                                   "rule files are plain data: remove the tag"))
        if node.tag == "tag:yaml.org,2002:str":
            value = node.value  # the common case, without the constructor's machinery
        else:
            value = self.loader.construct_object(node, deep=True)
        if isinstance(value, bool) and not node.style and node.value.lower() not in ("true", "false"):
            self.diags.append(_yaml_bool(node.value, value, self.pos(node)))
        if isinstance(value, str):
            block = node.style in ("|", ">")
            if node.end_mark.line > node.start_mark.line:
                block = self._rows(node) or block
            return Text(value, self.pos(node), quoted=node.style in ("'", '"'), block=block)
        return value


    def from_events(self):
        """The tree in one pass over libyaml's event stream, for the plain data rule files
        are: no document markers beyond one, no explicit tags, keys that are scalars. Anything
        else (and any YAML error) returns `_SLOW`, and the composing path below reads the file
        and explains what it finds. Both paths give the same tree and the same diagnostics;
        this one skips building a node graph and resolves plain scalars by their first
        character."""
        path, diags = self.path, self.diags
        depth_limit, node_limit = LIMITS["depth"], LIMITS["nodes"]
        # open containers: [node, is a mapping, pending key (or _SLOW), the key's position,
        # its anchor, the node count when it opened]
        stack: list = []
        anchors: dict = {}  # name -> (node, its position, its size in nodes)
        root = _SLOW
        count = 0
        copied = 0  # nodes copied for aliases
        documents = 0
        try:
            for ev in yaml.parse(self.text, Loader=yaml.CSafeLoader):
                cls = type(ev)
                if cls is _ScalarEvent:
                    if ev.tag is not None:
                        return _SLOW
                    m = ev.start_mark
                    pos = _tuple_new(Pos, (path, m.line + 1, m.column + 1))
                    node = self._event_scalar(ev, pos)
                    if node is _SLOW:
                        return _SLOW
                    size = 1
                    if ev.anchor is not None:
                        anchors[ev.anchor] = (node, pos, 1)
                elif cls is _MappingStartEvent or cls is _SequenceStartEvent:
                    if ev.tag is not None or len(stack) >= depth_limit:
                        return _SLOW
                    m = ev.start_mark
                    pos = _tuple_new(Pos, (path, m.line + 1, m.column + 1))
                    if cls is _MappingStartEvent:
                        node = Map()
                    else:
                        node = Seq()
                    node.pos = pos
                    size = 1
                elif cls is _MappingEndEvent or cls is _SequenceEndEvent:
                    frame = stack.pop()
                    if frame[4] is not None:
                        anchors[frame[4]] = (frame[0], frame[0].pos, count - frame[5] + 1)
                    continue
                elif cls is _AliasEvent:
                    hit = anchors.get(ev.anchor)
                    if hit is None:
                        return _SLOW
                    node, pos, size = hit
                    copied += size
                    if copied > _ALIAS_COPY_LIMIT:  # many copies (an alias bomb?): the composing
                        return _SLOW                # path measures them before building
                    node = clone(node)
                elif cls is _DocumentStartEvent:
                    documents += 1
                    if documents > 1:
                        return _SLOW
                    continue
                else:  # stream start and end, document end
                    continue
                count += size
                if count > node_limit:
                    return _SLOW
                if not stack:
                    root = node
                else:
                    top = stack[-1]
                    if top[1]:
                        if top[2] is _SLOW:  # this node is a key
                            if isinstance(node, (dict, list)):
                                return _SLOW
                            key = str(node) if isinstance(node, Text) else node
                            if type(key) is not str:
                                self.text_keys = False
                            parent = top[0]
                            if key in parent:
                                diags.append(_duplicate_key(key, pos, parent.kpos[key]))
                            top[2], top[3] = key, pos
                        else:
                            parent, key = top[0], top[2]
                            parent[key] = node
                            parent.kpos[key] = top[3]
                            parent.vpos[key] = pos
                            top[2] = _SLOW
                    else:
                        top[0].append(node)
                        top[0].ipos.append(pos)
                if (cls is _MappingStartEvent or cls is _SequenceStartEvent):
                    stack.append([node, cls is _MappingStartEvent, _SLOW, None, ev.anchor, count])
        except Exception:  # noqa: BLE001 - any complaint: the composing path explains it
            return _SLOW
        return root

    def _event_scalar(self, ev, pos):
        value = ev.value
        if ev.style:  # quoted or block: a string
            tag = _STR_TAG
        elif not ev.implicit[0]:
            return _SLOW
        else:
            tag = _plain_tag(value)
        if tag == _STR_TAG:
            block = ev.style in ("|", ">")
            if ev.end_mark.line > ev.start_mark.line:
                block = self._rows(ev) or block
            return Text(value, pos, quoted=ev.style in ("'", '"'), block=block)
        if tag not in _ALLOWED_SCALAR_TAGS:
            return _SLOW
        out = _SAFE_CONSTRUCTORS[tag](_CONSTRUCTOR, yaml.ScalarNode(tag, value, ev.start_mark, ev.end_mark))
        if isinstance(out, bool) and value.lower() not in ("true", "false"):
            self.diags.append(_yaml_bool(value, out, pos))
        return out

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
            for r in body:
                if r.strip():
                    indent = len(r) - len(r.lstrip(" "))
                    break
            if indent is None:
                return None
            for i, r in enumerate(body):
                rows.append((start.line + 2 + i, indent + 1, r[indent:].rstrip("\r")))
            while rows and not rows[-1][2]:
                rows.pop()
            return (node.style == ">", rows)
        first_col = start.column + 1 + (1 if node.style in ("'", '"') else 0)
        for i, r in enumerate(raw):
            if i == 0:
                rows.append((start.line + 1, first_col, r[first_col - start.column - 1:].rstrip()))
            else:
                stripped = r.lstrip(" \t")
                rows.append((start.line + 1 + i, len(r) - len(stripped) + 1, stripped.rstrip()))
        return (True, rows)

    def measure(self, root) -> None:
        """Refuse an alias bomb before building anything: the size of every node after alias
        expansion, computed once per distinct node (aliases share nodes)."""
        sizes: dict = {}

        def size(node, depth):
            got = sizes.get(id(node))
            if got is not None:
                return got
            if depth > LIMITS["depth"]:
                raise _Stop(Diagnostic("yaml-too-deep", f"nesting deeper than {LIMITS['depth']} levels",
                                       self.pos(node)))
            n = 1
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    n += size(k, depth + 1) + size(v, depth + 1)
            elif isinstance(node, yaml.SequenceNode):
                for v in node.value:
                    n += size(v, depth + 1)
            sizes[id(node)] = n
            return n

        limit = LIMITS["nodes"]
        total = size(root, 0)
        if total <= limit:
            return
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


_tuple_new = tuple.__new__  # Pos(...) without the named tuple's Python-level __new__
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
_SLOW = object()  # from_events: this file needs the composing path
_ALIAS_COPY_LIMIT = 20_000
_STR_TAG = "tag:yaml.org,2002:str"
_ScalarEvent, _AliasEvent = yaml.ScalarEvent, yaml.AliasEvent
_MappingStartEvent, _MappingEndEvent = yaml.MappingStartEvent, yaml.MappingEndEvent
_SequenceStartEvent, _SequenceEndEvent = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_DocumentStartEvent = yaml.DocumentStartEvent
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_SAFE_CONSTRUCTORS = yaml.constructor.SafeConstructor.yaml_constructors
_RESOLVERS = yaml.resolver.Resolver.yaml_implicit_resolvers
_PLAIN_TAGS: dict = {}


def _plain_tag(value: str) -> str:
    """The tag YAML's resolver gives an untagged plain scalar (the same rules, looked up by
    the first character as the resolver does, remembered per text)."""
    tag = _PLAIN_TAGS.get(value)
    if tag is None:
        tag = _STR_TAG
        for t, regexp in _RESOLVERS.get(value[:1], []) + _RESOLVERS.get(None, []):
            if regexp.match(value):
                tag = t
                break
        if len(_PLAIN_TAGS) > 100_000:
            _PLAIN_TAGS.clear()
        _PLAIN_TAGS[value] = tag
    return tag


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


def clone(node):
    """A copy of a positioned tree whose mappings and lists can be changed freely (text leaves
    are immutable and shared)."""
    if isinstance(node, Map):
        m = Map((k, clone(v)) for k, v in node.items())
        m.pos, m.kpos, m.vpos = node.pos, dict(node.kpos), dict(node.vpos)
        return m
    if isinstance(node, Seq):
        q = Seq(clone(v) for v in node)
        q.pos, q.ipos = node.pos, list(node.ipos)
        return q
    return node


def load_file(path: str, display: Optional[str] = None) -> Any:
    """Load one YAML file into a positioned tree, or raise RulebookError with positions.

    Parsed files are kept per process by path, size and modification time (composing every
    module combination reads the same files again). The tree is shared: treat it as read-only
    (compose.py copies what it changes)."""
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), display, st.st_size, st.st_mtime_ns)
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
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise RulebookError([Diagnostic("file", f"cannot read: {e.strerror}", Pos(shown, 0, 0))], "load")
    if size > LIMITS["file_bytes"]:
        raise RulebookError([Diagnostic("file-too-large",
                                        f"file is {size} bytes; the limit is {LIMITS['file_bytes']}",
                                        Pos(shown, 1, 1))], "load")
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        before = raw[: e.start]
        line = before.count(b"\n") + 1
        col = e.start - (before.rfind(b"\n") + 1) + 1
        raise RulebookError([Diagnostic("encoding", f"byte 0x{raw[e.start]:02x} is not UTF-8",
                                        Pos(shown, line, col), "save the file as UTF-8")], "load")
    if not text.strip() or all(l.strip().startswith("#") or not l.strip() for l in text.splitlines()):
        raise RulebookError([Diagnostic("empty", "the file is empty", Pos(shown, 1, 1),
                                        "a rule file holds a mapping of sections")], "load")
    tree = load_text(text, shown)
    if isinstance(tree, Map):
        import hashlib

        tree.digest = hashlib.sha256(raw).hexdigest()
    return tree


def _c_parser_fits(text: str) -> bool:
    """Can libyaml's C parser (many times faster) read this file? Only when it is present and
    the file is well-formed and not too deep: its composer recurses in C, so depth is checked
    first on the event stream (which does not recurse). Anything else goes to the pure-Python
    parser, whose error messages the diagnostics are written for."""
    if not getattr(yaml, "__with_libyaml__", False):
        return False
    depth = 0
    try:
        for ev in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > LIMITS["depth"]:
                    return False
            elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except Exception:  # noqa: BLE001 - any complaint: let the Python parser explain it
        return False
    return True


def load_text(text: str, shown: str = "<text>"):
    if getattr(yaml, "__with_libyaml__", False):
        b = _Builder(shown, None, text)
        tree = b.from_events()
        if tree is not _SLOW:
            if b.diags:
                raise RulebookError(b.diags, "load")
            if isinstance(tree, Map):
                tree.text_keys = b.text_keys
            return tree
    fast = _c_parser_fits(text)
    try:
        loader = yaml.CSafeLoader(text) if fast else yaml.SafeLoader(text)
    except yaml.reader.ReaderError as e:  # a control character
        before = text[: e.position]
        line = before.count("\n") + 1
        col = e.position - (before.rfind("\n") + 1) + 1
        raise RulebookError([Diagnostic("encoding", f"character U+{e.character:04X} is not allowed in a rule file",
                                        Pos(shown, line, col), "remove the control character")], "load") from None
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            msg = (e.problem or "invalid YAML").strip()
            if e.context:
                msg = f"{msg} ({e.context.strip()})"
            hint = None
            if "tab" in msg.lower() or "'\\t'" in msg:
                hint = "indent with spaces, not tabs"
            elif "mapping values are not allowed" in msg:
                hint = "quote a value that contains ': '"
            elif "while parsing a flow" in msg and e.context_mark is not None:
                kind = "list" if "sequence" in msg else "mapping"
                hint = (f"check the brackets of the {kind} opened at line {e.context_mark.line + 1}, "
                        f"column {e.context_mark.column + 1}")
            msg, hint = yaml_hints.explain(text, msg, line, col, hint)
            raise RulebookError([Diagnostic("yaml", msg, Pos(shown, line, col), hint)], "load") from None
        except yaml.YAMLError as e:
            raise RulebookError([Diagnostic("yaml", str(e).splitlines()[0], Pos(shown, 1, 1))], "load") from None
        except RecursionError:
            raise RulebookError([_deep_at(text, shown)], "load") from None
        if node is None:
            raise RulebookError([Diagnostic("empty", "the file is empty", Pos(shown, 1, 1))], "load")
        b = _Builder(shown, loader, text)
        try:
            b.measure(node)
            tree = b.build(node)
        except _Stop as s:
            raise RulebookError([s.diag], "load") from None
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            raise RulebookError([Diagnostic("yaml", str(getattr(e, "problem", e)), Pos(shown, line, col))], "load") from None
        except RecursionError:
            raise RulebookError([Diagnostic("yaml-too-deep", "nesting too deep", Pos(shown, 1, 1))], "load") from None
        if b.diags:
            raise RulebookError(b.diags, "load")
        if isinstance(tree, Map):
            tree.text_keys = b.text_keys
        return tree
    finally:
        loader.dispose()


def _deep_at(text: str, shown: str) -> Diagnostic:
    """Where nesting first goes past the limit (found with the event parser, which does not
    recurse), for a file too deep for the composer."""
    depth = 0
    pos = Pos(shown, 1, 1)
    try:
        for ev in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > LIMITS["depth"]:
                    pos = Pos(shown, ev.start_mark.line + 1, ev.start_mark.column + 1)
                    break
            elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except (yaml.YAMLError, RecursionError):
        pass
    return Diagnostic("yaml-too-deep", f"nesting deeper than {LIMITS['depth']} levels", pos)


def expand_includes(root: Map, base_dir: str, root_display: str, rel) -> list[tuple[str, Map]]:
    """The root file's `include:` list (paths or globs relative to the ruleset folder) -> the
    loaded files in order, as (display path, tree)."""
    out = []
    inc = root.get("include") or []
    if isinstance(inc, str):
        inc = [inc]
    diags = []
    seen = set()
    for i, pattern in enumerate(inc):
        p = value_pos(root["include"], i) if isinstance(root.get("include"), Seq) else pos_of(root)
        if not isinstance(pattern, str):
            diags.append(Diagnostic("include", "an include is a file path", p))
            continue
        if os.path.isabs(pattern) or ".." in pattern.replace("\\", "/").split("/"):
            diags.append(Diagnostic("include", f"include '{pattern}' leaves the ruleset folder", p,
                                    "include files inside the ruleset folder only"))
            continue
        matches = sorted(glob.glob(os.path.join(base_dir, pattern)))
        if not matches:
            candidates = [os.path.relpath(f, base_dir) for f in glob.glob(os.path.join(base_dir, "**", "*.yaml"), recursive=True)]
            diags.append(Diagnostic("include", f"include '{pattern}' matches no file", p,
                                    suggest(pattern, candidates)))
            continue
        for f in matches:
            if f in seen:
                continue
            seen.add(f)
            try:
                out.append((rel(f), load_file(f, rel(f))))
            except RulebookError as e:
                diags.extend(e.diagnostics)
    if diags:
        raise RulebookError(diags, "load")
    return out
