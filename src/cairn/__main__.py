"""Allow `python -m cairn`."""

from cairn.cli.main import main

raise SystemExit(main())
