"""Shared pytest set-up: the `slow` marker. Slow tests are deselected by default; run them with
`pytest --runslow` (or select them explicitly with `-m slow`)."""


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a heavy test, deselected unless --runslow or -m slow")
    config.addinivalue_line("markers", "fuzz: seeded, bounded fuzzing of hostile input (runs by default and in CI)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow") or config.option.markexpr:
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("slow") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
