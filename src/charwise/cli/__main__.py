"""``python -m charwise.cli`` (and ``accelerate launch -m charwise.cli``)."""

import sys

from charwise.cli import main

sys.exit(main())
