"""`python -m interpreter ...` is the `rulebook` command."""
from .cli import main

if __name__ == "__main__":
    main()
