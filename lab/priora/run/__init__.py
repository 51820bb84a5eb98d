"""How a scenario runs: on the kernel in this process (simulate, through the
native binding, native.py, the lowest layer of the lab, which imports only the
errors and the limits) or on QEMU (qemu_run, blob, uart_trace); a run's
kernel trace read back from a file (trace_file, trace_decode); the refusals in
a trace (refusals).
"""
