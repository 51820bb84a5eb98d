"""A run's kernel trace as others read it: the intervals and marks the
pictures draw (timeline), Perfetto's JSON (chrome_trace), CTF for
babeltrace2 and Trace Compass (ctf).
"""
