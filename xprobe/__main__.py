import sys

from xprobe.cli import main

sys.exit(main())
