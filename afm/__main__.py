"""`python -m afm serve ...`"""

import sys

from afm.cli import main

sys.exit(main())
