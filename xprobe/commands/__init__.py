"""One module per ``xprobe`` subcommand: ``HELP``, ``add_arguments(parser)``, ``run(args)``."""
