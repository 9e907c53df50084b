"""What a player is asked: their legal actions grouped by kind and asked parameter by parameter
(`action_groups`), the decision waiting and what it is about (`decision`), and how a move reads
to a player (`move_text`).

Owns: the order in which parameters are asked (the view's `ask:`, else the declared order), the
questions, the decision's `about` text (rendered with the waiting rule's names, shown to the
player deciding, to everyone only when the view says `public: true`; each reads the template made
for them, with `?` where it may read what they cannot see: view/about_reads.py).
"""
from __future__ import annotations

from ..engine.infosets import public_entry
from ..engine.labels import label_is_public as engine_label_is_public

CHOOSE = "choose"


def legal_for(state, player) -> list:
    """`player`'s legal actions in the order the engine lists them (the order of "index")."""
    if player is None or state.is_terminal or player not in state.current_players:
        return []
    return [action for action in state.legal_actions() if action.player == player]


def action_groups(state, viewer, player, about=None) -> list:
    """[{"kind", "title", "steps": [{"param", "question"}], "choices": [{"index", "label",
    "path": [text per step], "args"}]}], one group per action kind, in the engine's order."""
    groups: dict = {}
    for index, action in enumerate(legal_for(state, player)):
        group = groups.get(action.name)
        if group is None:
            group = groups[action.name] = _group(state, viewer, action, about)
        args = action.kwargs
        path = [_value_text(viewer, group, step["param"], args, player) for step in group["steps"]]
        text = action.label
        if action.name == CHOOSE:
            text = _option_text(state, viewer, args, action.label)
            path = [text]
        group["choices"].append({"index": index, "label": action.label, "text": text, "path": path,
                                 "args": _plain(args)})
    return list(groups.values())


def _value_text(viewer, group: dict, param: str, args: dict, player) -> str:
    """One parameter's value as the step shows it: by the view's `values:` template, else the
    value itself (a component by its name)."""
    ask = viewer.spec.actions.get(group["kind"])
    template = ask.values.get(param) if ask is not None else None
    if template is not None:
        return viewer.text(template, dict(args, player=player))
    return viewer.cell(args.get(param))["text"]


def _option_text(state, viewer, args: dict, label: str) -> str:
    """A decision's option as a person reads it: when the rule gives no label of its own (the
    label is the bare value, or the engine's 'choose VALUE'), the value as the view shows it (a
    component by its name); else the rule's label."""
    option = args.get("value")
    if label in (str(option), f"choose {option}"):
        show = viewer.spec.decisions.get(str((state.pending or {}).get("prompt", "")))
        return viewer.cell(option, bool(show and show.by_player))["text"]
    return label


def _group(state, viewer, action, about=None) -> dict:
    if action.name == CHOOSE:
        question = about or str((state.pending or {}).get("prompt", "decide"))
        return {"kind": CHOOSE, "title": question, "steps": [{"param": "option", "question": question}], "choices": []}
    ask = viewer.spec.actions.get(action.name)
    rule = state.rs.actions.get(action.name)
    params = [name for name, _ in rule.params] if rule is not None else [key for key, _ in action.args]
    order = list(ask.order) if ask is not None else params
    questions = ask.questions if ask is not None else {}
    values = ask.values if ask is not None else {}
    steps = [dict({"param": name, "question": questions.get(name, f"{name}?")}, **({"shown": True} if name in values else {}))
             for name in order if name in params]
    return {"kind": action.name, "title": (ask.title if ask is not None and ask.title else action.name),
            "steps": steps, "choices": []}


def _plain(value):
    """JSON-ready: tuples as lists, keys as text."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def decision(state, viewer, pending_view, player):
    """The decision waiting, or None: {"player", "name", "colour", "yours", "prompt", "about"}."""
    if not pending_view:
        return None
    seat = pending_view["player"]
    prompt = str(pending_view.get("prompt") or "")
    yours = seat == player
    about = prompt
    show = viewer.spec.decisions.get(prompt)
    if show is not None and (yours or show.public):  # each reads the parts they may see (view/about_reads.py)
        about = viewer.text(show.about if yours else show.about_public, _waiting_names(state, yours, player)) or prompt
    elif show is None and yours and "{" in prompt:  # the rule's prompt is a template: filled in for the decider
        names = _waiting_names(state, yours, player)
        template = viewer.spec.prompt_template(prompt, names)
        about = viewer.text(template, names) if template is not None else prompt
    return dict(viewer.player(seat), yours=yours, prompt=prompt, about=about)


def _waiting_names(state, yours: bool, player) -> dict:
    """The names of the rule waiting for the decision (its parameters, lets and loop variables),
    and the options for the player deciding (`player`; in a decision of several, `p` is their
    seat, as in the `choose`'s own options and labels)."""
    raw = state.pending or {}
    stack = state.d.get("stack") or []
    names: dict = {}
    frame_index = raw.get("frame")
    if isinstance(frame_index, int) and 0 <= frame_index < len(stack):
        names.update(stack[frame_index].get("locals") or {})
    if yours and "players" in raw:
        names["p"] = player
    names["options"] = list(raw.get("options") or []) if yours else []
    names["option"] = None
    return names


def label_is_public(viewer, kind: str) -> bool:
    """True when the action's label template reads only its parameters, the player and public
    vars (through the defines it calls too): then another player may read it as it was written
    (the engine's rule, engine/labels.py)."""
    return engine_label_is_public(viewer.rs, kind)


def move_text(state, viewer, entry: dict, player) -> str:
    """A move as `player` reads it: their own by its label; another's decision as 'made a
    decision'; another's secret move by its kind only; another's public move by its kind and its
    arguments shown by name (never by its label, a template that may read the state)."""
    shown = public_entry(state.rs, entry, player) if player is not None else entry
    if shown.get("simultaneous") and shown.get("secret"):  # chosen at once with others: not even which action
        return "has chosen"
    if shown.get("secret"):  # {"player", "action": its id, "secret": true}
        ask = viewer.spec.actions.get(shown.get("action"))
        return f"{ask.title if ask is not None and ask.title else shown.get('action')} (secret)"
    action = shown["action"]
    kind = action.get("action")
    if player is None or action.get("player") == player:
        return str(action.get("label") or kind)
    if kind == CHOOSE:
        return "made a decision"
    if action.get("label") and label_is_public(viewer, kind):
        return str(action["label"])
    ask = viewer.spec.actions.get(kind)
    title = ask.title if ask is not None and ask.title else kind
    args = action.get("args") or {}
    order = list(ask.order) if ask is not None else list(args)
    words = [viewer.cell(args[name])["text"] for name in order if name in args]
    return f"{title}: {', '.join(words)}" if words else title
