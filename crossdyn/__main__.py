"""`python -m crossdyn` runs the command line."""
import sys

from crossdyn.cli import main

sys.exit(main())
