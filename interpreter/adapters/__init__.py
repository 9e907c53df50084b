"""Research adapters: every ruleset as an OpenSpiel game, a PettingZoo AEC environment and a
Gymnasium environment, over one fixed action space and observation layout (`encoding`).

The library-specific modules import their library on use; `encoding` needs nothing extra."""
