"""``python -m triage.cli``: the headless command line."""

import sys

from triage.base import startup
from triage.cli.program import main

code = main()
startup.freeze_survivors()   # the process ends: shutdown's collections skip what it made
sys.exit(code)
