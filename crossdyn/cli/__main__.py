"""`python -m crossdyn.cli` runs the command line (as `python -m crossdyn` does)."""
import sys

from crossdyn.cli import main

sys.exit(main())
