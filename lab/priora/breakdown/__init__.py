"""The breakdown utilisation: the largest scaling of a task set's execution
times that still meets every deadline, by analysis and by the kernel (search).
"""
