"""What a run's report holds and its outputs: the job, task, resource and
system figures built from a run (build), as text, JSON and tables.
"""
