"""`rulebook analyze`: study a design from many seeded games.

Modules, by concern: `runner` (one instrumented game, local processes), `records` (the SQLite
store), `stats` (intervals and tests), `balance` (win rates), `metrics` (game shape),
`coverage` (dead rules and cards, influence), `variants` (--set/--compare/--sweep), `report`
(the report dict and its text), `html` (the self-contained HTML report), `raybackend` (Ray),
`progress` (stderr), `agents` (time-budgeted MCTS, restricted play), `command` (the CLI)."""
