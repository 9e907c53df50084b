"""The terminal table: `rulebook play` and `rulebook replay --step` drawn with Rich from the
plain-data view of the game (what one player may see), actions asked in steps, the commands a
player types at a prompt, and a replay stepped forward and back with a diff of each step.

Modules: `view` (the plain-data view a player sees), `render` (Rich tables from it), `ask`
(actions grouped by kind and asked in steps), `commands` (help, show, score, log, undo),
`session` (the game loop of `play`), `replay` (stepping a saved game), `ending` (score rows
and the tie-breaker that decided).
"""
