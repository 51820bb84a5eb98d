"""The `priora` commands, one module per family, each imported only when its
command runs.

Every module has `arguments(command)`: the command's options, declared as
data (priora.cli.options.Arg), and its handler, a function of the parsed
arguments that returns the output, a str or a priora.cli.options.Outcome.
priora.cli.main gives the options to argparse, or parses a command line of
positionals alone without it.
"""
