import sys

from graphrag_ui.cli import main

sys.exit(main())
