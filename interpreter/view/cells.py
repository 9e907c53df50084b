"""Values as cells a person reads: `Viewer` evaluates the view's compiled expressions against
ONE player's observation and turns each value into a cell.

A cell is plain data: {"text": str} plus, when they apply, "colour" (a CSS colour name or #hex),
"ref" (the id of the component shown, for `show CARD`), "hidden": true (a value the viewer may
not see) and "parts" (a list of cells, for a list or a map: the terminal and the browser colour
each part). Owns: component names and colours, player names and colours, hidden values.
"""
from __future__ import annotations

from .spec import default_colour

EMPTY = "—"
MAX_PARTS = 60


class Viewer:
    """Evaluation for one viewer: `vars` is what that player may see (`observe(player)["vars"]`)."""

    def __init__(self, ruleset, spec, observed_vars: dict, player=None):
        self.rs = ruleset
        self.spec = spec
        self.vars = observed_vars
        self.seat = player  # the viewer's seat (None: everyone, a finished game)
        self._labelling = False
        self.seats = list(observed_vars.get("players") or [])
        self.names = [self._player_text(seat) for seat in self.seats]
        self.colours = [self._player_colour(seat) for seat in self.seats]

    # -- evaluating --------------------------------------------------------------------------
    def evaluate(self, handle, local_names: dict):
        """(evaluated, value). A failing expression (often one reaching a hidden value) is (False, None)."""
        if handle is None:
            return False, None
        try:
            self.rs.budget.reset()
            return True, handle.fn(self.vars, local_names)
        except Exception:  # the view is data from the rule files: a bad one shows '?', never crashes a table
            return False, None

    def cell_of(self, handle, local_names: dict, by_player: bool = False) -> dict:
        evaluated, value = self.evaluate(handle, local_names)
        if not evaluated or (self.reads_secret(handle, local_names) and not _placeholder(value)):
            return self.unreadable(handle)
        return self.cell(value, by_player)

    def reads_secret(self, handle, local_names: dict) -> bool:
        """True when the expression reads a var the viewer does not see whole: a `hidden` or
        `count` var, or an `owner` var in a row or area that is not the viewer's own (`p`). Its
        value, computed from placeholders, would be wrong (len of a hidden hand is not its size)."""
        hidden, owner = self.secret_kinds(handle)
        if hidden:
            return True
        return owner and not (self.seat is None or local_names.get("p", self.seat) == self.seat)

    def secret_kinds(self, handle) -> tuple:
        """(reads a hidden or count var, reads an owner var), worked out once per expression."""
        known = self.spec.secret_reads.get(id(handle))
        if known is None or known[0] is not handle:
            visibility = [self.rs.vars[name].visibility for name in self.read_names(handle) if name in self.rs.vars]
            known = (handle, any(kind in ("hidden", "count") for kind in visibility), "owner" in visibility)
            self.spec.secret_reads[id(handle)] = known
        return known[1], known[2]

    def public_only(self, handles) -> bool:
        """True when `handles`, the players' names and colours and the components' labels and
        colours read no var that any player sees differently: their cells are the same for all."""
        handles = tuple(handles)
        key = tuple(id(handle) for handle in handles)
        known = self.spec.public_handles.get(key)
        if known is None:  # worked out once per set of expressions (kept on the spec, which keeps them alive)
            common = self.spec.common_handles()
            known = (handles, not any(any(self.secret_kinds(handle)) for handle in handles + tuple(common)))
            self.spec.public_handles[key] = known
        return known[1]

    def unreadable(self, handle) -> dict:
        names = self.read_names(handle)
        secret = any(self.rs.vars[name].visibility != "public" for name in names if name in self.rs.vars)
        return {"text": "hidden", "hidden": True} if secret else {"text": "?"}

    def read_names(self, handle) -> set:
        """The names an expression reads, with the vars of the defines it calls."""
        names = set(getattr(handle, "names", None) or ())
        for name in list(names):
            names |= self.spec.define_vars.get(name, frozenset())
        return names

    def text(self, template, local_names: dict) -> str:
        """A compiled template's text ('?' for a part that fails)."""
        if template is None:
            return ""
        if isinstance(template, str):
            return template
        out = []
        for part in template:
            if isinstance(part, str):
                out.append(part)
            else:
                evaluated, value = self.evaluate(part, local_names)
                out.append(self.cell(value)["text"] if evaluated else "?")
        return "".join(out)

    # -- cells -------------------------------------------------------------------------------
    def cell(self, value, by_player: bool = False) -> dict:
        if isinstance(value, dict):
            if set(value) == {"hidden"}:
                count = value["hidden"]
                return {"text": "hidden" if count is True else f"hidden ({count})", "hidden": True}
            return self._parts([self._keyed(key, item, by_player) for key, item in value.items()], "; ")
        if isinstance(value, (list, tuple)):
            if value and all(isinstance(item, (list, tuple)) for item in value):  # rows: "a 1, b 2"
                # by player, a row's first item is the seat: [[seat, count], ...] reads "Red 2, Blue 1"
                return self._parts([self._parts([self.cell(inner, by_player and (place == 0 or not isinstance(inner, int)))
                                                 for place, inner in enumerate(item)], " ") for item in value], ", ")
            return self._parts([self.cell(item, by_player) for item in value], ", ")
        if value is None:
            return {"text": EMPTY}
        if by_player and isinstance(value, int) and self.seat_of(value) is not None:
            return {"text": self.names[value], "colour": self.colours[value], "seat": value}
        if isinstance(value, bool):
            return {"text": "yes" if value else "no"}
        if isinstance(value, str) and value in self.rs.entities:
            return self.component_cell(value)
        if value == "":
            return {"text": "·"}
        return {"text": str(value)}

    def _parts(self, parts: list, separator: str) -> dict:
        if not parts:
            return {"text": EMPTY}
        parts = parts[:MAX_PARTS]
        cell = {"text": separator.join(part["text"] for part in parts), "parts": parts}
        if any(part.get("hidden") for part in parts):
            cell["hidden"] = True
        return cell

    def _keyed(self, key, item, by_player: bool) -> dict:
        seat = self.seat_of(key) if by_player else None
        inner = self.cell(item, by_player and isinstance(item, (dict, list, tuple)))  # a count stays a count
        if seat is not None:
            part = {"text": f"{self.names[seat]} {inner['text']}", "colour": self.colours[seat], "seat": seat}
        else:
            label = self.cell(key)["text"] if isinstance(key, str) else str(key)
            part = {"text": f"{label}: {inner['text']}"}
            if any(piece.get("colour") for piece in inner.get("parts", ())):
                part["parts"] = [{"text": f"{label}:"}] + inner["parts"]
        if inner.get("hidden"):
            part["hidden"] = True
        return part

    def seat_of(self, key):
        if isinstance(key, str) and key.isdigit():
            key = int(key)
        if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(self.seats):
            return key
        return None

    def component_cell(self, component_id: str) -> dict:
        entity = self.rs.entities[component_id]
        show = self.spec.components.get(entity.get("type")) if isinstance(entity, dict) else None
        name_field = show.name_field if show else "name"
        text = str(entity.get(name_field) or entity.get("name") or component_id)
        if show is not None and show.label is not None and not self._labelling:
            self._labelling = True  # a label showing a component (or `it` itself) shows its name
            try:
                text = self.text(show.label, {"it": component_id}) or text
            finally:
                self._labelling = False
        cell = {"text": text, "ref": component_id}
        if show is not None and show.colour is not None:
            evaluated, colour = self.evaluate(show.colour, {"it": component_id})
            if evaluated and isinstance(colour, str) and colour:
                cell["colour"] = colour
        return cell

    def component(self, component_id: str) -> dict:
        """A component as `show CARD` shows it: name, type, colour and the fields that matter."""
        entity = self.rs.entities.get(component_id)
        if not isinstance(entity, dict):
            return None
        show = self.spec.components.get(entity.get("type"))
        names = show.fields if show and show.fields else [key for key in entity if key not in (
            "id", "type", "name", "source", "reconstructed", "interpretation")]
        out = dict(self.component_cell(component_id), type=entity.get("type"))
        out["fields"] = [{"title": name, "cell": self.cell(entity.get(name))} for name in names]
        return out

    # -- players -----------------------------------------------------------------------------
    def _player_text(self, seat: int) -> str:
        if self.spec.player_name is None:
            return f"Player {seat + 1}"
        return self.text(self.spec.player_name, {"p": seat}) or f"Player {seat + 1}"

    def _player_colour(self, seat: int) -> str:
        evaluated, colour = self.evaluate(self.spec.player_colour, {"p": seat})
        return colour if evaluated and isinstance(colour, str) and colour else default_colour(seat)

    def player(self, seat) -> dict:
        if seat is None or not 0 <= seat < len(self.seats):
            return {"seat": seat, "name": "everyone" if seat is None else f"seat {seat}", "colour": None}
        return {"seat": seat, "name": self.names[seat], "colour": self.colours[seat]}


def _placeholder(value) -> bool:
    """A value that is only what `observe` shows of a secret ({"hidden": n}, or a map of them)."""
    if isinstance(value, dict):
        return set(value) == {"hidden"} or (bool(value) and all(_placeholder(item) for item in value.values()))
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_placeholder(item) for item in value)
    return False
