import sys

from graddoctor.cli.commands import main

sys.exit(main())
