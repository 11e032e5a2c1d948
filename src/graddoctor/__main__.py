import sys

from graddoctor.cli import main

sys.exit(main())
