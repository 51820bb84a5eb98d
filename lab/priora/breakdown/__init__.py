"""The breakdown utilisation: the largest scaling of a task set's execution
times (or of one field) that still meets every deadline, by analysis and by
the kernel (search), and its outputs, as a document and as tables (output).
"""
