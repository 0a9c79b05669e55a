"""The subcommands of `pytest-tom`, one module each.

A subcommand module declares `NAME` and `HELP` and two functions:
`add_arguments(parser)` and `run(args) -> int` (the exit status). `pytest_tom/cli.py`
only lists the modules and dispatches; adding a command is adding a module here and
one line there.
"""
