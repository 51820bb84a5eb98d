"""The `priora` command: argument parsing and one function per command (main),
and `priora demo` (demo). The entry point is priora.cli.main:main.
"""
