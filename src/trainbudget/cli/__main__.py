"""`python -m trainbudget.cli` runs the CLI."""

import sys

from trainbudget.cli import main

sys.exit(main())
