"""`python -m arazzo_runner.cli ...` is `arazzo ...`."""

import sys

from . import entry

sys.exit(entry())
