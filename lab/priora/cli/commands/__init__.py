"""The `priora` commands, one module per family, each imported only when its
command runs (priora.cli.main builds the parser of the command asked for).

Every module has `add_arguments(command, parser)`, which gives the command's
parser its options and its handler: a function of the parsed arguments that
returns the output, a str or a priora.cli.parser.Outcome.
"""
