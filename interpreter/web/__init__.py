"""The web table (`rulebook serve`): an ASGI app (Starlette) where people create games, join a
seat by a secret link, play from that seat's view over a WebSocket, and replay finished games.

Modules: `store` (SQLite: games and every applied action), `view` (what one seat sees of a state:
`seat_view`, the view model of interpreter/view), `table` (live games: seats, tokens, agents, the public log), `app` (HTTP and
WebSocket routes), `command` (the `serve` sub-command). Static files (plain ES modules, no build
step) live in `static/`. Needs the `web` extra: `pip install 'rulebook[web]'`.
"""
