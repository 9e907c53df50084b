"""The `rulebook serve` sub-command: its arguments and starting uvicorn."""
from __future__ import annotations


def add_parser(sub) -> None:
    serve = sub.add_parser("serve", help="run the web table (needs the 'web' extra)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--db", default="rulebook-games.sqlite", help="the SQLite file that keeps the games")


def cmd_serve(args, out, err, _in) -> int:
    try:
        import uvicorn

        from .app import MAX_MESSAGE, create_app
    except ImportError as error:
        print(f"rulebook serve needs the web extra: pip install 'rulebook[web]' ({error})", file=err)
        return 2
    app = create_app(args.db)
    print(f"rulebook table on http://{args.host}:{args.port}/  (games in {args.db})", file=out, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=MAX_MESSAGE, log_level="warning")
    return 0
