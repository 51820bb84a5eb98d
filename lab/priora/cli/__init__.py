"""The `priora` command: the command line parsed and its errors made one line
(main), what the commands share (parser, writing), one module per command
(commands), and what `priora demo` shows (demo). The program is
priora.cli.main:run_command.
"""
