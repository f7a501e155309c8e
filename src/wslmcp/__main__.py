import sys

from wslmcp.cli import main

sys.exit(main())
