"""``python -m triage.cli``: the headless command line."""

import sys

from triage.cli.program import main

sys.exit(main())
