"""``python -m ginp2p``: the same as the ``ginp2p`` command."""

import sys

from ginp2p.cli import main

sys.exit(main())
