"""`python -m arazzo_runner.cli ...` is `arazzo ...`."""

import sys

from . import main

sys.exit(main())
